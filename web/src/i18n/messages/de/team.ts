import type { Messages } from '../en';

export default {
  roles: {
    viewer: 'Betrachter',
    manager: 'Manager',
    admin: 'Admin',
  },
  asRole: {
    viewer: 'als Betrachter',
    manager: 'als Manager',
    admin: 'als Admin',
  },
} satisfies Messages['team'];

import type { Messages } from '../en';

export default {
  roles: {
    viewer: 'Lector',
    manager: 'Gestor',
    admin: 'Administrador',
  },
  asRole: {
    viewer: 'como lector',
    manager: 'como gestor',
    admin: 'como administrador',
  },
} satisfies Messages['team'];

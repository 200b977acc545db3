import type { Messages } from '../en';

export default {
  roles: {
    viewer: 'Lecteur',
    manager: 'Gestionnaire',
    admin: 'Administrateur',
  },
  asRole: {
    viewer: 'en tant que lecteur',
    manager: 'en tant que gestionnaire',
    admin: 'en tant qu’administrateur',
  },
} satisfies Messages['team'];

/** Area "team": workspace settings (members, roles, invitations), the instance's users page, registration settings. English is the source of truth (web/src/i18n/README.md). */
export default {
  roles: {
    viewer: 'Viewer',
    manager: 'Manager',
    admin: 'Admin',
  },
  /** A role after "as", in a sentence: "join Acme as a viewer". */
  asRole: {
    viewer: 'as a viewer',
    manager: 'as a manager',
    admin: 'as an admin',
  },
};

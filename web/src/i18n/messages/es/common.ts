import type { Messages } from '../en';

export default {
  brand: 'DAM',
  save: 'Guardar',
  saving: 'Guardando…',
  cancel: 'Cancelar',
  close: 'Cerrar',
  confirm: 'Confirmar',
  ok: 'Aceptar',
  dismiss: 'Descartar',
  nothingToChoose: 'Todavía no hay nada que elegir.',
  retry: 'Reintentar',
  tryAgain: 'Volver a intentarlo',
  or: 'o',
  email: 'Correo electrónico',
  name: 'Nombre',
  password: 'Contraseña',
  goToLibrary: 'Ir a la biblioteca',
  actions: 'Acciones',
  backToLibrary: '← Biblioteca',
  state: {
    loading: 'Cargando…',
    error: 'Algo salió mal',
    empty: 'Aún no hay nada aquí',
  },
  time: {
    justNow: 'ahora mismo',
    soon: 'pronto',
    withinADay: 'en menos de un día',
  },
  newPassword: {
    newLabel: 'Nueva contraseña',
    confirmLabel: 'Confirmar la nueva contraseña',
    confirmPassword: 'Confirmar la contraseña',
    atLeast: 'Al menos {n} caracteres.',
    differ: 'Las dos contraseñas no coinciden.',
  },
} satisfies Messages['common'];

/** An entry of PickDialog: a destination folder, a collection. */
export interface PickOption {
  value: number | null;
  label: string;
}

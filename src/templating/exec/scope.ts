/**
 * Compile-time variable scopes of one template body: names map to slots of a frame array that is
 * allocated per template call. Scoping follows Go: a variable lives until the `end` of the control
 * structure that declared it, or to the end of the template.
 */
export class Scope {
  private names: string[] = ['$'];
  private slots: number[] = [0];
  /** Frame size needed so far. */
  size = 1;

  /** Current depth, to restore with pop() at the end of a control structure. */
  mark(): number {
    return this.names.length;
  }

  pop(mark: number): void {
    this.names.length = mark;
    this.slots.length = mark;
  }

  /** Declares `name` in a new slot and returns the slot. */
  declare(name: string): number {
    const slot = this.size++;
    this.names.push(name);
    this.slots.push(slot);
    return slot;
  }

  /** Slot of the innermost `name`, or -1. */
  lookup(name: string): number {
    for (let i = this.names.length - 1; i >= 0; i--) if (this.names[i] === name) return this.slots[i] as number;
    return -1;
  }
}

/**
 * Writes to stdout and resolves once Node has handed the text to the operating system: what must
 * be seen before a transaction commits (a password shown once) is out of the process by then,
 * and survives the process being killed a moment later.
 */
export function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (e) => (e ? reject(e) : resolve())));
}

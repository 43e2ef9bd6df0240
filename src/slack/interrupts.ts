// The shutdown seam: every answer in flight registers how to tell its asker it was cut short
// (there is no placeholder message to rewrite any more: a status line, a reaction or a stream
// shows labbot at work). The drain (conversation.ts) calls tellAll() once its time is up.
export interface Interrupts {
  /** Registers one in-flight answer's "tell the asker"; returns the function that unregisters it. */
  register(tell: () => Promise<void>): () => void;
  /** Tells every registered asker, once each; resolves with how many were told. */
  tellAll(): Promise<number>;
  size(): number;
}

export function createInterrupts(onError: (err: Error) => void): Interrupts {
  const open = new Set<() => Promise<void>>();
  return {
    register(tell) {
      open.add(tell);
      return () => void open.delete(tell);
    },
    async tellAll() {
      const left = [...open];
      open.clear();
      await Promise.all(left.map((tell) => tell().catch((err: Error) => onError(err))));
      return left.length;
    },
    size: () => open.size,
  };
}

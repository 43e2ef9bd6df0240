// Socket Mode: a minimal RFC 6455 server side, enough for undici's WebSocket client. It greets a
// connection as Slack does, answers pings, records the frames the bot sends and delivers
// envelopes to it.
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

export type EnvelopeType = 'events_api' | 'slash_commands' | 'interactive';

function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.from([0x80 | opcode, len]) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (len >= 126 && len < 65536) {
    head[0] = 0x80 | opcode;
    head[1] = 126;
    head.writeUInt16BE(len, 2);
  } else if (len >= 65536) {
    head[0] = 0x80 | opcode;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([head, payload]);
}

function makeFrameReader(onFrame: (opcode: number, payload: Buffer) => void): (chunk: Buffer) => void {
  let buf = Buffer.alloc(0);
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (buf.length < 2) return;
      const opcode = buf[0] & 0x0f;
      const masked = (buf[1] & 0x80) !== 0;
      let len = buf[1] & 0x7f;
      let off = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        off = 10;
      }
      const maskLen = masked ? 4 : 0;
      if (buf.length < off + maskLen + len) return;
      const mask = masked ? buf.subarray(off, off + 4) : undefined;
      const payload = Buffer.from(buf.subarray(off + maskLen, off + maskLen + len));
      if (mask) for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
      buf = buf.subarray(off + maskLen + len);
      onFrame(opcode, payload);
    }
  };
}

/** Takes WebSocket upgrades on /ws; `notify` runs on each connection and each text frame received. */
export function acceptSocketMode(server: Server, notify: () => void) {
  const received: Record<string, unknown>[] = [];
  let socket: Socket | undefined;
  server.on('upgrade', (req: IncomingMessage, sock: Socket) => {
    const key = req.headers['sec-websocket-key'];
    if (!key || !req.url?.startsWith('/ws')) {
      sock.destroy();
      return;
    }
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    sock.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    socket = sock;
    sock.on(
      'data',
      makeFrameReader((opcode, payload) => {
        if (opcode === 0x9) sock.write(encodeFrame(0xa, payload));
        else if (opcode === 0x8) {
          if (!sock.destroyed) sock.end(encodeFrame(0x8, payload.subarray(0, 2)));
        } else if (opcode === 0x1) {
          try {
            received.push(JSON.parse(payload.toString('utf8')) as Record<string, unknown>);
          } catch {
            received.push({ raw: payload.toString('utf8') });
          }
          notify();
        }
      }),
    );
    sock.on('error', () => {});
    sock.on('close', () => {
      if (socket === sock) socket = undefined;
    });
    // Slack greets every new connection; the Socket Mode client waits for this before it is "connected".
    sock.write(
      encodeFrame(
        0x1,
        Buffer.from(
          JSON.stringify({ type: 'hello', num_connections: 1, debug_info: { host: 'fake' }, connection_info: { app_id: 'A0LAB' } }),
        ),
      ),
    );
    notify();
  });
  return {
    /** Frames received from the bot (parsed JSON). */
    received,
    connected: () => socket !== undefined,
    /** Sends an envelope to the connected bot; returns its envelope_id. */
    send(type: EnvelopeType, payload: Record<string, unknown>): string {
      if (!socket) throw new Error('no Socket Mode connection');
      const envelope_id = randomUUID();
      socket.write(
        encodeFrame(
          0x1,
          Buffer.from(
            JSON.stringify({
              envelope_id,
              type,
              payload,
              accepts_response_payload: type !== 'events_api',
              retry_attempt: 0,
              retry_reason: '',
            }),
          ),
        ),
      );
      return envelope_id;
    },
    close: () => socket?.destroy(),
  };
}

// Webhook signing secrets and verification tokens are encrypted at rest with AES-256-GCM
// (brief: "secrets hashed/encrypted and never logged"). They cannot be hashed: the workers
// need them to sign. The key is SECRET_KEY; without it (development only, config.ts refuses
// production) one is generated once and kept under DATA_DIR.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';

const VERSION = 'v1';

function decodeKey(value: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error('SECRET_KEY must be 32 bytes');
  return key;
}

/** The development key file: created once with O_EXCL, so racing processes agree on one key. */
function developmentKey(dataDir: string): Buffer {
  const dir = dataDir.startsWith('memory://') ? './.data' : dataDir;
  const file = join(dir, 'secret.key');
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return decodeKey(readFileSync(file, 'utf8').trim());
}

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        VERSION,
        iv.toString('base64url'),
        body.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
      ].join('.');
    },
    open(sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || body === undefined || !tag) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** The 32 bytes of SECRET_KEY, or in development the key kept under DATA_DIR. */
export function secretKeyBytes(config: Config): Buffer {
  return config.SECRET_KEY ? decodeKey(config.SECRET_KEY) : developmentKey(config.DATA_DIR);
}

// eslint-disable-next-line no-restricted-syntax -- process state: per-configuration clients
const boxes = new WeakMap<Config, SecretBox>();

/** The process's box for a configuration (one key read per configuration). */
export function secretBox(config: Config): SecretBox {
  let box = boxes.get(config);
  if (!box) {
    box = createSecretBox(secretKeyBytes(config));
    boxes.set(config, box);
  }
  return box;
}

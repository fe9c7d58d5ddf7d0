// Webhook secrets at rest: AES-256-GCM under SECRET_KEY; production refuses to start without
// a key; a sealed value cannot be read or altered without the key.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { generateWebhookSecret } from '../../src/webhooks/signature.js';

describe('SECRET_KEY', () => {
  it('is required in production and must be 32 bytes', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/SECRET_KEY: is required in production/);
    for (const bad of ['short', 'a'.repeat(63), 'g'.repeat(64), randomBytes(16).toString('base64')]) {
      expect(() => loadConfig({ SECRET_KEY: bad })).toThrow(/SECRET_KEY: must be 32 bytes/);
    }
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: randomBytes(32).toString('hex') }).isProduction).toBe(true);
    expect(loadConfig({ SECRET_KEY: randomBytes(32).toString('base64') }).SECRET_KEY).toBeDefined();
  });
});

describe('the secret box', () => {
  const box = createSecretBox(randomBytes(32));
  const secret = generateWebhookSecret();

  it('round-trips, with a fresh nonce each time, and never stores the plaintext', () => {
    const a = box.seal(secret);
    const b = box.seal(secret);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret.slice(6));
    expect(box.open(a)).toBe(secret);
    expect(box.open(b)).toBe(secret);
  });

  it('refuses a tampered value and another key', () => {
    const sealed = box.seal(secret);
    const [v, iv, body, tag] = sealed.split('.');
    const flipped = Buffer.from(body!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => box.open([v, iv, flipped.toString('base64url'), tag].join('.'))).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(() => box.open('not sealed')).toThrow();
  });
});

// People's passwords (accounts of the admin area and the OAuth login): argon2id with OWASP's
// recommended cost (19 MiB, 2 iterations, 1 lane). One place for the parameters, so the hash
// an account is created with and the work a login check costs cannot drift apart.
import { hash, verify } from '@node-rs/argon2';

const ARGON2_OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

/** False for a wrong password and for a stored value that is not an argon2 hash. */
export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password).catch(() => false);
}

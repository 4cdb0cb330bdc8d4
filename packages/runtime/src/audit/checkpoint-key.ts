import crypto from 'node:crypto';
import fs from 'node:fs';

/** The Ed25519 key that signs chain checkpoints (`[audit_log] checkpoint_key_file`), and its public half for verifying. */
export interface CheckpointKey {
  readonly keyId: string;
  /** Base64 signature of `text`. */
  sign(text: string): string;
  /** Whether `signature` (base64) is this key's signature of `text`; false for anything malformed. */
  verify(text: string, signature: string): boolean;
}

/** Reads the key file (the config loader has checked that it holds an unencrypted Ed25519 private key). */
export function loadCheckpointKey(file: string, keyId: string): CheckpointKey {
  const privateKey = crypto.createPrivateKey(fs.readFileSync(file));
  const publicKey = crypto.createPublicKey(privateKey);
  return {
    keyId,
    sign: (text) => crypto.sign(null, Buffer.from(text), privateKey).toString('base64'),
    verify(text, signature) {
      if (!/^[A-Za-z0-9+/]{86}==$/.test(signature)) return false;
      try {
        return crypto.verify(null, Buffer.from(text), publicKey, Buffer.from(signature, 'base64'));
      } catch {
        return false;
      }
    },
  };
}

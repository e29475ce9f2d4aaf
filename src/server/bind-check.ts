import { existsSync, readFileSync } from 'node:fs';

/** What says this process runs in a container or on a platform that health-checks it from outside. */
export interface ContainerSigns {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly exists: (path: string) => boolean;
  readonly read: (path: string) => string | null;
}

const PLATFORM_VARS = ['KUBERNETES_SERVICE_HOST', 'K_SERVICE', 'FLY_APP_NAME', 'RAILWAY_ENVIRONMENT', 'ECS_CONTAINER_METADATA_URI_V4'];

/** The platform variable or file that gave the container away, or null on a plain host. */
export function containerSign(signs: ContainerSigns = hostSigns()): string | null {
  const variable = PLATFORM_VARS.find((v) => signs.env[v]);
  if (variable) return variable;
  if (signs.exists('/.dockerenv')) return '/.dockerenv';
  if (signs.exists('/run/.containerenv')) return '/run/.containerenv';
  return /docker|kubepods|containerd|libpod/.test(signs.read('/proc/1/cgroup') ?? '') ? '/proc/1/cgroup' : null;
}

/**
 * A warning when the server listens on loopback inside a container: nothing outside the container
 * (the platform's health check, the caller) can reach it, and without it the health check just
 * times out. Loopback is the default only when CHIRP auth is off (config.ts).
 */
export function loopbackInContainerWarning(host: string, signs: ContainerSigns = hostSigns()): string | null {
  if (host !== '127.0.0.1' && host !== '::1' && host !== 'localhost') return null;
  const sign = containerSign(signs);
  if (!sign) return null;
  return `listening on ${host} inside a container (${sign}): nothing outside it, the platform's health check included, can reach this server. Set CHIRP_USER and CHIRP_PASS (the server then listens on 0.0.0.0), or MIVAS_HOST=0.0.0.0 with MIVAS_ALLOW_PUBLIC_NOAUTH=1 on a private network (docs/deploy.md)`;
}

function hostSigns(): ContainerSigns {
  return {
    env: process.env,
    exists: existsSync,
    read: (path) => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return null;
      }
    },
  };
}

import { describe, expect, it } from 'vitest';
import { containerSign, loopbackInContainerWarning, type ContainerSigns } from '../../../src/server/index.ts';

const host = (over: Partial<ContainerSigns> = {}): ContainerSigns => ({ env: {}, exists: () => false, read: () => null, ...over });

describe('a loopback listener inside a container', () => {
  it('is named with the sign that gave the container away', () => {
    expect(containerSign(host({ env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' } }))).toBe('KUBERNETES_SERVICE_HOST');
    expect(containerSign(host({ env: { K_SERVICE: 'mivas' } }))).toBe('K_SERVICE');
    expect(containerSign(host({ exists: (p) => p === '/.dockerenv' }))).toBe('/.dockerenv');
    expect(containerSign(host({ read: () => '0::/kubepods/besteffort/pod1' }))).toBe('/proc/1/cgroup');
    expect(containerSign(host({ read: () => '0::/init.scope' }))).toBeNull();
  });

  it('warns only for a loopback host in a container, and says how to fix it', () => {
    const docker = host({ exists: (p) => p === '/.dockerenv' });
    expect(loopbackInContainerWarning('127.0.0.1', docker)).toMatch(/inside a container \(\/\.dockerenv\).*CHIRP_USER and CHIRP_PASS/);
    expect(loopbackInContainerWarning('0.0.0.0', docker)).toBeNull();
    expect(loopbackInContainerWarning('127.0.0.1', host())).toBeNull();
  });
});

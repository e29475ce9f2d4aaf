import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseToml, parseYamlDocuments } from '../support/manifest-readers.ts';
import { SERVE_NODE_FLAGS } from '../../src/server/index.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string): string => readFileSync(resolve(ROOT, file), 'utf8');
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const docs = (file: string): Obj[] => parseYamlDocuments(read(file)).map(obj);
const ofKind = (file: string, kind: string): Obj => docs(file).find((d) => d.kind === kind) ?? {};

/** The MIVAS_* value a container sets, if any. */
function envOf(container: Obj, name: string): unknown {
  return obj(arr(container.env).find((e) => obj(e).name === name)).value;
}

describe('Dockerfile (static checks of the image contents)', () => {
  const text = read('Dockerfile');
  const stages = text.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1) ?? '';

  it('is multi-stage on node:24-bookworm-slim, with the compiler only in the build stage', () => {
    expect(stages.map((s) => s.split(/\s/)[0])).toEqual(['node:24-bookworm-slim', 'node:24-bookworm-slim']);
    expect(stages[0]).toMatch(/python3 make g\+\+/);
    expect(runtime).not.toMatch(/\bg\+\+|\bmake\b|python3/);
  });

  it('installs production dependencies only and copies no tests or dev tooling', () => {
    expect(text).toMatch(/npm ci --omit=dev/);
    expect(text).not.toMatch(/npm (ci|install)(?![^\n]*--omit=dev)/);
    expect(runtime).toMatch(/COPY --from=build \/app\/node_modules/);
    expect(runtime).not.toMatch(/COPY (test|bench|\.)\s/);
  });

  it('runs as a non-root user under tini, with a data volume, port 8765 and a 101-probe HEALTHCHECK', () => {
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime.indexOf('USER node')).toBeLessThan(runtime.indexOf('CMD ['));
    expect(runtime).toMatch(/ENTRYPOINT \["\/usr\/bin\/tini", "--"\]/);
    expect(runtime).toMatch(/VOLUME \["\/data"\]/);
    expect(runtime).toMatch(/^EXPOSE 8765$/m);
    expect(runtime).toMatch(/HEALTHCHECK[^\n]*\\\n\s+CMD \["node", "bin\/mivas.js", "probe", "--local"/);
    // The image starts node with the flags `mivas serve` asks for (src/server/node-flags.ts).
    expect(runtime).toContain(`CMD ${JSON.stringify(['node', ...SERVE_NODE_FLAGS, 'bin/mivas.js', 'serve']).replaceAll(',', ', ')}`);
  });

  it('.dockerignore keeps secrets, data, tests and node_modules out of the build context', () => {
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim());
    for (const entry of ['.env', '.git', 'node_modules', 'data', 'test']) expect(ignored).toContain(entry);
    for (const needed of ['src', 'packs', 'migrations', 'bin', 'package.json', 'package-lock.json']) expect(ignored).not.toContain(needed);
  });
});

describe('k8s manifests', () => {
  const deployment = ofKind('k8s/deployment.yaml', 'Deployment');
  const podSpec = obj(obj(obj(deployment.spec).template).spec);
  const container = obj(arr(podSpec.containers)[0]);

  it('every file parses and names apiVersion, kind and metadata.name', () => {
    for (const file of ['k8s/deployment.yaml', 'k8s/ingress-nginx.yaml', 'k8s/ingress-alb.yaml', 'k8s/secret.example.yaml']) {
      for (const d of docs(file)) {
        expect(typeof d.apiVersion, file).toBe('string');
        expect(typeof d.kind, file).toBe('string');
        expect(typeof obj(d.metadata).name, file).toBe('string');
      }
    }
    expect(docs('k8s/deployment.yaml').map((d) => d.kind)).toEqual(['Deployment', 'Service', 'PodDisruptionBudget']);
  });

  it('Deployment: port 8765, readiness on /health, a liveness that survives draining, preStop, resources', () => {
    expect(arr(container.ports).map((p) => obj(p).containerPort)).toEqual([8765]);
    expect(obj(obj(container.readinessProbe).httpGet).path).toBe('/health');
    const liveness = obj(container.livenessProbe);
    // /health is 503 while draining; liveness must not use it.
    expect(obj(liveness.httpGet).path).not.toBe('/health');
    expect(obj(liveness.tcpSocket).port).toBeDefined();
    expect(arr(obj(obj(obj(container.lifecycle).preStop).exec).command).length).toBeGreaterThan(0);
    expect(obj(obj(container.resources).requests).cpu).toBeDefined();
    expect(obj(obj(container.resources).requests).memory).toBeDefined();
    expect(arr(podSpec.volumes).length).toBeGreaterThan(0);
  });

  it('the termination grace period outlasts the longest call and the drain', () => {
    const grace = Number(podSpec.terminationGracePeriodSeconds);
    expect(grace).toBeGreaterThan(Number(envOf(container, 'MIVAS_MAX_CALL_S')));
    expect(grace).toBeGreaterThan(Number(envOf(container, 'MIVAS_DRAIN_S')));
  });

  it('Service targets 8765 and the PDB selects the pods', () => {
    const service = ofKind('k8s/deployment.yaml', 'Service');
    expect(arr(obj(service.spec).ports).map((p) => obj(p).port)).toEqual([8765]);
    expect(obj(obj(ofKind('k8s/deployment.yaml', 'PodDisruptionBudget').spec).selector)).toEqual({ matchLabels: { app: 'mivas' } });
  });

  it('ingresses keep WebSockets open for 3600 s and route to port 8765', () => {
    const nginx = obj(obj(ofKind('k8s/ingress-nginx.yaml', 'Ingress').metadata).annotations);
    expect(nginx['nginx.ingress.kubernetes.io/proxy-read-timeout']).toBe('3600');
    expect(nginx['nginx.ingress.kubernetes.io/proxy-send-timeout']).toBe('3600');
    const alb = obj(obj(ofKind('k8s/ingress-alb.yaml', 'Ingress').metadata).annotations);
    expect(alb['alb.ingress.kubernetes.io/load-balancer-attributes']).toContain('idle_timeout.timeout_seconds=3600');
    expect(alb['alb.ingress.kubernetes.io/healthcheck-path']).toBe('/health');
    for (const file of ['k8s/ingress-nginx.yaml', 'k8s/ingress-alb.yaml']) expect(read(file)).toMatch(/number: 8765/);
  });

  it('the Secret example holds only placeholders', () => {
    const data = obj(ofKind('k8s/secret.example.yaml', 'Secret').stringData);
    expect(Object.keys(data)).toEqual(expect.arrayContaining(['CHIRP_USER', 'CHIRP_PASS', 'BLUEJAY_API_KEY']));
    expect(data.CHIRP_PASS).toBe('change-me');
  });
});

describe('Cloud Run, Railway and Fly', () => {
  it('Cloud Run: 3600 s timeout, session affinity, concurrency = MIVAS_MAX_CALLS, port 8765', () => {
    const template = obj(obj(ofKind('deploy/cloudrun.yaml', 'Service').spec).template);
    const spec = obj(template.spec);
    const container = obj(arr(spec.containers)[0]);
    expect(spec.timeoutSeconds).toBe(3600);
    expect(obj(obj(template.metadata).annotations)['run.googleapis.com/sessionAffinity']).toBe('true');
    expect(spec.containerConcurrency).toBe(Number(envOf(container, 'MIVAS_MAX_CALLS')));
    expect(arr(container.ports).map((p) => obj(p).containerPort)).toEqual([8765]);
    expect(obj(obj(container.startupProbe).httpGet).path).toBe('/health');
  });

  it('railway.toml: Dockerfile builder, /health check, restart policy, a draining window', () => {
    const railway = parseToml(read('railway.toml'));
    expect(obj(railway.build)).toMatchObject({ builder: 'DOCKERFILE', dockerfilePath: 'Dockerfile' });
    expect(obj(railway.deploy)).toMatchObject({ healthcheckPath: '/health', restartPolicyType: 'ON_FAILURE' });
    expect(Number(obj(railway.deploy).drainingSeconds)).toBeGreaterThanOrEqual(900);
  });

  it('fly.toml: port 8765, /health check, connection limit = MIVAS_MAX_CALLS, drain shorter than kill_timeout, data mount', () => {
    const fly = parseToml(read('fly.toml'));
    const http = obj(fly.http_service);
    expect(http.internal_port).toBe(8765);
    expect(obj(arr(http.checks)[0]).path).toBe('/health');
    expect(obj(http.concurrency).hard_limit).toBe(Number(obj(fly.env).MIVAS_MAX_CALLS));
    expect(Number(obj(fly.env).MIVAS_DRAIN_S)).toBeLessThan(Number.parseInt(String(fly.kill_timeout), 10));
    expect(obj(arr(fly.mounts)[0]).destination).toBe(obj(fly.env).MIVAS_DATA_DIR);
  });
});

describe('manifest readers reject what they do not understand', () => {
  it('throws on bad indentation and unknown TOML values', () => {
    expect(() => parseYamlDocuments('a:\n  b: 1\n   c: 2\n')).toThrow();
    expect(() => parseToml('a = nope\n')).toThrow();
  });
});

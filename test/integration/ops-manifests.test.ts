import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { parseEnvFile, parseToml } from '../support/manifest-readers.ts';
import { SERVE_NODE_FLAGS } from '../../src/server/index.ts';
import { loadConfig } from '../../src/config.ts';
import {
  checkManifests,
  findKustomize,
  K8S_DIR,
  kustomizationDirs,
  parseManifests,
  podSpecOf,
  render,
  restrictedViolations,
  type Manifest,
} from '../../scripts/validate-k8s.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string): string => readFileSync(resolve(ROOT, file), 'utf8');
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const docs = (file: string): Obj[] => parseManifests(read(file), file);
const ofKind = (list: readonly Obj[], kind: string, name?: string): Obj =>
  list.find((d) => d.kind === kind && (name === undefined || obj(d.metadata).name === name)) ?? {};

/** The MIVAS_* value a container sets, if any. */
function envOf(container: Obj, name: string): unknown {
  return obj(arr(container.env).find((e) => obj(e).name === name)).value;
}

/**
 * Seconds mivas may still need after its drain deadline before it exits: the outbox flush bound
 * (src/server/app-context.ts closeAppContext, which the app's close runs) and the Bluejay link flush (settle time + 30 s of retries,
 * src/server/observability.ts closeOperations). Read from the sources, so a longer bound there
 * fails the grace-period checks below instead of going unnoticed.
 */
function shutdownBoundsS(): { outboxFlush: number; linkFlush: number } {
  const app = read('src/server/app-context.ts');
  const ops = read('src/server/observability.ts');
  const flush = /outbox\.flush\(\), new Promise\(\(resolve\) => setTimeout\(resolve, ([\d_]+)\)/.exec(app)?.[1];
  const links = /links\.flush\(settleMs \+ ([\d_]+)\)/.exec(ops)?.[1];
  expect(flush, 'outbox flush bound in src/server/app-context.ts').toBeDefined();
  expect(links, 'link flush bound in src/server/observability.ts').toBeDefined();
  const config = loadConfig({});
  if (!config.ok) throw new Error(config.problems.join('; '));
  const ms = (s: string | undefined): number => Number((s ?? '').replaceAll('_', ''));
  return { outboxFlush: ms(flush) / 1000, linkFlush: (ms(links) + config.config.bluejay.settleMs) / 1000 };
}
const shutdownTailS = (): number => shutdownBoundsS().outboxFlush + shutdownBoundsS().linkFlush;

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

// -------------------------------------------------------------------------------------------
// Kubernetes: the validator (scripts/validate-k8s.ts) on the real manifests, then its own checks
// on broken ones, then what each overlay must contain.

const kustomize = findKustomize();
const missing = 'missing' in kustomize ? kustomize.missing : undefined;
const skipNote = missing ? ` (skipped: ${missing})` : '';
const rendered: Record<string, Manifest[]> = {};
if (!('missing' in kustomize)) {
  for (const dir of kustomizationDirs().kustomizations) rendered[dir.slice(ROOT.length + 1)] = parseManifests(render(kustomize, dir), dir);
}
const overlays = Object.keys(rendered).filter((d) => d.startsWith('k8s/overlays/'));

/** Every YAML file under k8s/ that is a whole object (not a kustomization or a patch). */
function wholeObjectFiles(dir = K8S_DIR): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...wholeObjectFiles(path));
    else if (entry.name.endsWith('.yaml') && entry.name !== 'kustomization.yaml' && !entry.name.endsWith('-patch.yaml')) out.push(path);
  }
  return out.sort();
}

const findingText = (f: { source: string; object: string; problem: string }[]): string => f.map((x) => `${x.source} ${x.object}: ${x.problem}`).join('\n');

describe('k8s: schema, declared fields and Pod Security "restricted" (scripts/validate-k8s.ts)', () => {
  it(`every kustomization renders with kustomize and every object it renders passes${skipNote}`, async ({ skip }) => {
    if (missing) return skip();
    expect(overlays.sort()).toEqual(['k8s/overlays/eks', 'k8s/overlays/eks-alb', 'k8s/overlays/gateway', 'k8s/overlays/nginx']);
    for (const [source, manifests] of Object.entries(rendered)) {
      expect(manifests.length, source).toBeGreaterThan(0);
      const findings = await checkManifests(source, manifests);
      expect(findingText(findings), source).toBe('');
    }
  });

  it('every whole-object YAML file under k8s/ passes on its own (no kustomize needed)', async () => {
    const files = wholeObjectFiles();
    expect(files.length).toBeGreaterThanOrEqual(10);
    // One call (one TypeScript program) for all files; findings name the object.
    const all = files.flatMap((file) => parseManifests(readFileSync(file, 'utf8'), file));
    expect(findingText(await checkManifests('k8s/**/*.yaml', all))).toBe('');
  });
});

describe('the validator refuses what it should', () => {
  const base = docs('k8s/base/statefulset.yaml')[0] as Manifest;
  const clone = (): Manifest => structuredClone(base);
  const pod = (m: Manifest): Obj => obj(obj(obj(m.spec).template).spec);
  const container = (m: Manifest): Obj => obj(arr(pod(m).containers)[0]);
  const sc = (m: Manifest): Obj => obj(container(m).securityContext);
  const violations = (m: Manifest): string[] => restrictedViolations(podSpecOf(m) as { spec: Obj; annotations: Obj });

  it('the base pod passes "restricted"', () => {
    expect(violations(clone())).toEqual([]);
  });

  // One broken control at a time, each from the published profile table.
  const cases: [string, (m: Manifest) => void, RegExp][] = [
    ['allowPrivilegeEscalation left out', (m) => delete sc(m).allowPrivilegeEscalation, /^Privilege escalation/],
    ['no runAsNonRoot anywhere', (m) => delete obj(pod(m).securityContext).runAsNonRoot, /^Running as non-root: container/],
    ['a container overriding runAsNonRoot to false', (m) => (sc(m).runAsNonRoot = false), /^Running as non-root: container/],
    ['runAsUser 0', (m) => (obj(pod(m).securityContext).runAsUser = 0), /^Running as non-root user/],
    ['no seccomp profile', (m) => delete obj(pod(m).securityContext).seccompProfile, /^Seccomp: container/],
    ['seccomp Unconfined on the container', (m) => (sc(m).seccompProfile = { type: 'Unconfined' }), /^Seccomp/],
    ['capabilities not dropped', (m) => delete sc(m).capabilities, /^Capabilities: .* must drop ALL/],
    ['a capability added', (m) => (sc(m).capabilities = { drop: ['ALL'], add: ['NET_RAW'] }), /^Capabilities: .* adds NET_RAW/],
    ['privileged', (m) => (sc(m).privileged = true), /^Privileged containers/],
    ['hostNetwork', (m) => (pod(m).hostNetwork = true), /^Host namespaces/],
    ['a hostPath volume', (m) => arr(pod(m).volumes).push({ name: 'h', hostPath: { path: '/' } }), /^HostPath volumes/],
    ['a hostPort', (m) => (obj(arr(container(m).ports)[0]).hostPort = 8765), /^Host ports/],
    ['an unsafe sysctl', (m) => (obj(pod(m).securityContext).sysctls = [{ name: 'kernel.msgmax', value: '1' }]), /^Sysctls/],
    ['procMount Unmasked', (m) => (sc(m).procMount = 'Unmasked'), /^\/proc mount type/],
    ['an init container without a security context', (m) => (pod(m).initContainers = [{ name: 'init', image: 'busybox' }]), /initContainer init must set allowPrivilegeEscalation/],
  ];
  for (const [what, breakIt, rule] of cases) {
    it(`"restricted" catches ${what}`, () => {
      const m = clone();
      breakIt(m);
      expect(violations(m).some((v) => rule.test(v)), violations(m).join('\n')).toBe(true);
    });
  }

  it('schema, declared-field and kind checks each catch their mistake', async () => {
    const wrongType = clone();
    obj(arr(container(wrongType).ports)[0]).containerPort = '8765';
    const typo = clone();
    container(typo).readinesProbe = container(typo).readinessProbe;
    delete container(typo).readinessProbe;
    const unknownKind = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } } as Manifest;
    const problems = async (m: Manifest): Promise<string> => (await checkManifests('t', [m])).map((f) => f.problem).join('\n');
    expect(await problems(wrongType)).toMatch(/schema: .*containerPort must be integer/);
    // The JSON schema alone accepts an undeclared field: only the type check catches it.
    expect(await problems(typo)).not.toMatch(/^schema:/m);
    expect(await problems(typo)).toMatch(/fields: .*'"readinesProbe"' does not exist/);
    expect(await problems(unknownKind)).toMatch(/no JSON schema for example\.com\/v1 Widget/);
  });
});

describe(`k8s overlays: what each one must contain${skipNote}`, () => {
  const each = (name: string, fn: (source: string, list: Manifest[]) => void): void => {
    it(`${name}${skipNote}`, ({ skip }) => {
      if (missing) return skip();
      for (const source of overlays) fn(source, rendered[source] as Manifest[]);
    });
  };
  const statefulSet = (list: Manifest[]): Obj => ofKind(list, 'StatefulSet', 'mivas');
  const podOf = (list: Manifest[]): Obj => obj(obj(obj(statefulSet(list).spec).template).spec);
  const mivas = (list: Manifest[]): Obj => obj(arr(podOf(list).containers).find((c) => obj(c).name === 'mivas'));

  each('one persistent data volume per replica at MIVAS_DATA_DIR, /tmp writable, root filesystem read-only', (source, list) => {
    const c = mivas(list);
    const dataDir = String(envOf(c, 'MIVAS_DATA_DIR'));
    const mount = obj(arr(c.volumeMounts).find((m) => obj(m).mountPath === dataDir));
    const claims = arr(obj(statefulSet(list).spec).volumeClaimTemplates).map((t) => obj(obj(t).metadata).name);
    expect(claims, source).toContain(mount.name);
    expect(arr(c.volumeMounts).map((m) => obj(m).mountPath), source).toContain('/tmp');
    expect(obj(c.securityContext).readOnlyRootFilesystem, source).toBe(true);
    // The namespace itself enforces the profile the validator checks.
    expect(obj(obj(ofKind(list, 'Namespace').metadata).labels)['pod-security.kubernetes.io/enforce'], source).toBe('restricted');
  });

  each('the grace period outlasts preStop + MIVAS_DRAIN_S + the shutdown tail; probes on /health', (source, list) => {
    const c = mivas(list);
    const preStop = Number(arr(obj(obj(obj(c.lifecycle).preStop).exec).command).at(-1));
    const grace = Number(podOf(list).terminationGracePeriodSeconds);
    expect(grace, source).toBeGreaterThan(preStop + Number(envOf(c, 'MIVAS_DRAIN_S')) + shutdownTailS());
    expect(Number(envOf(c, 'MIVAS_DRAIN_S')), source).toBeGreaterThanOrEqual(Number(envOf(c, 'MIVAS_MAX_CALL_S')));
    expect(obj(obj(c.readinessProbe).httpGet).path, source).toBe('/health');
    expect(obj(obj(c.startupProbe).httpGet).path, source).toBe('/health');
    // /health is 503 while draining: liveness must not use it.
    expect(obj(c.livenessProbe).httpGet, source).toBeUndefined();
    expect(obj(c.livenessProbe).tcpSocket, source).toBeDefined();
  });

  each('topology spread over zones and nodes, selecting the pods', (source, list) => {
    const labels = obj(obj(obj(statefulSet(list).spec).template).metadata).labels;
    const spread = arr(podOf(list).topologySpreadConstraints).map(obj);
    expect(spread.map((s) => s.topologyKey).sort(), source).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
    for (const s of spread) expect(obj(obj(s.labelSelector).matchLabels), source).toEqual(labels);
  });

  each('exactly one autoscaler, on mivas_calls_active below MIVAS_MAX_CALLS, owning the replica count', (source, list) => {
    const maxCalls = Number(envOf(mivas(list), 'MIVAS_MAX_CALLS'));
    const hpas = list.filter((m) => m.kind === 'HorizontalPodAutoscaler');
    const scaled = list.filter((m) => m.kind === 'ScaledObject');
    expect(hpas.length + scaled.length, source).toBe(1);
    const target = obj(obj(hpas[0] ?? scaled[0]).spec).scaleTargetRef;
    expect(obj(target), source).toMatchObject({ kind: 'StatefulSet', name: 'mivas' });
    if (hpas[0]) {
      const metric = obj(arr(obj(hpas[0].spec).metrics)[0]);
      expect(obj(obj(metric.pods).metric).name, source).toBe('mivas_calls_active');
      expect(Number(obj(obj(metric.pods).target).averageValue), source).toBeLessThan(maxCalls);
    } else {
      const trigger = obj(arr(obj(scaled[0]?.spec).triggers)[0]);
      expect(String(obj(trigger.metadata).query), source).toContain('mivas_calls_active');
      expect(Number(obj(trigger.metadata).threshold), source).toBeLessThan(maxCalls);
    }
    expect(obj(statefulSet(list).spec).replicas, source).toBeUndefined();
  });

  each('S3 through workload identity: no static AWS keys anywhere, a role for the service account', (source, list) => {
    const text = JSON.stringify(list);
    expect(text, source).not.toMatch(/AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY/);
    const sa = ofKind(list, 'ServiceAccount', 'mivas');
    const irsa = obj(obj(sa.metadata).annotations)['eks.amazonaws.com/role-arn'];
    const c = mivas(list);
    const tokenFile = envOf(c, 'AWS_WEB_IDENTITY_TOKEN_FILE');
    expect(Boolean(irsa) !== Boolean(tokenFile), `${source}: exactly one of IRSA or web identity`).toBe(true);
    if (tokenFile) {
      // The token the SDK reads is the one the kubelet projects for STS.
      const mount = obj(arr(c.volumeMounts).find((m) => String(tokenFile).startsWith(`${String(obj(m).mountPath)}/`)));
      const volume = obj(arr(podOf(list).volumes).find((v) => obj(v).name === mount.name));
      const token = obj(obj(arr(obj(volume.projected).sources)[0]).serviceAccountToken);
      expect(token.audience, source).toBe('sts.amazonaws.com');
      expect(String(tokenFile).endsWith(`/${String(token.path)}`), source).toBe(true);
      expect(String(envOf(c, 'AWS_ROLE_ARN')), source).toMatch(/^arn:aws:iam::\d{12}:role\//);
    }
  });

  each('one route to the Service on 8765 with WebSocket-length timeouts; no retired ingress-nginx', (source, list) => {
    const text = JSON.stringify(list);
    expect(text, source).not.toContain('nginx.ingress.kubernetes.io/');
    const service = ofKind(list, 'Service', 'mivas');
    expect(arr(obj(service.spec).ports).map((p) => obj(p).port), source).toEqual([8765]);
    const maxCall = Number(envOf(mivas(list), 'MIVAS_MAX_CALL_S'));
    const routes = list.filter((m) => m.kind === 'HTTPRoute' || m.kind === 'Ingress');
    expect(routes.length, source).toBe(1);
    const route = routes[0] as Manifest;
    if (route.kind === 'HTTPRoute') {
      const rule = obj(arr(obj(route.spec).rules)[0]);
      expect(arr(rule.backendRefs).map((b) => [obj(b).name, obj(b).port]), source).toEqual([['mivas', 8765]]);
      expect(Number.parseInt(String(obj(rule.timeouts).request), 10), source).toBeGreaterThan(maxCall);
      const gateway = ofKind(list, 'Gateway', String(obj(arr(obj(route.spec).parentRefs)[0]).name));
      expect(arr(obj(gateway.spec).listeners).map((l) => obj(l).protocol), source).toEqual(['HTTPS']);
    } else {
      const annotations = obj(obj(route.metadata).annotations);
      const paths = arr(obj(obj(arr(obj(route.spec).rules)[0]).http).paths).map(obj);
      expect(obj(obj(paths[0]?.backend).service), source).toMatchObject({ name: 'mivas', port: { number: 8765 } });
      if (obj(route.spec).ingressClassName === 'alb') {
        const idle = /idle_timeout\.timeout_seconds=(\d+)/.exec(String(annotations['alb.ingress.kubernetes.io/load-balancer-attributes']))?.[1];
        expect(Number(idle), source).toBeGreaterThan(maxCall);
        expect(annotations['alb.ingress.kubernetes.io/healthcheck-path'], source).toBe('/health');
      } else {
        // F5 NGINX Ingress Controller (nginx.org/*): WebSockets only for listed Services.
        expect(String(annotations['nginx.org/websocket-services']).split(','), source).toEqual(['mivas', 'mivas-rl-router']);
        expect(Number.parseInt(String(annotations['nginx.org/proxy-read-timeout']), 10), source).toBeGreaterThan(maxCall);
      }
    }
  });

  each('RL episodes: pods named as replicas, /rl through the RL router to the owning pod', (source, list) => {
    const replica = obj(arr(mivas(list).env).find((e) => obj(e).name === 'MIVAS_RL_REPLICA'));
    expect(obj(obj(replica.valueFrom).fieldRef).fieldPath, source).toBe('metadata.name');
    const router = ofKind(list, 'Deployment', 'mivas-rl-router');
    const volumes = arr(obj(obj(obj(router.spec).template).spec).volumes).map(obj);
    const configMap = String(obj(volumes.find((v) => v.configMap)?.configMap).name);
    expect(Object.keys(obj(ofKind(list, 'ConfigMap', configMap).data)), source).toEqual(['mivas-rl.conf']);
    // The router reaches pods by name under the StatefulSet's governing (headless) Service.
    expect(obj(statefulSet(list).spec).serviceName, source).toBe('mivas-pods');
    const route = list.find((m) => m.kind === 'HTTPRoute' || m.kind === 'Ingress') as Manifest;
    const backends =
      route.kind === 'HTTPRoute'
        ? arr(obj(route.spec).rules).flatMap((r) => arr(obj(r).matches).flatMap((m) => arr(obj(r).backendRefs).map((b) => [obj(obj(m).path).value, obj(b).name, obj(b).port])))
        : arr(obj(obj(arr(obj(route.spec).rules)[0]).http).paths).map((p) => [obj(p).path, obj(obj(obj(p).backend).service).name, obj(obj(obj(obj(p).backend).service).port).number]);
    expect(backends, source).toContainEqual(['/rl', 'mivas-rl-router', 8080]);
  });

  it(`the default overlay is the Gateway API one${skipNote}`, ({ skip }) => {
    if (missing) return skip();
    expect((rendered['k8s/overlays/gateway'] ?? []).map((m) => m.kind)).toEqual(expect.arrayContaining(['Gateway', 'HTTPRoute', 'HorizontalPodAutoscaler']));
  });

  it('the Secret example holds only placeholders and no AWS keys', () => {
    const data = obj(ofKind(docs('k8s/secret.example.yaml'), 'Secret').stringData);
    expect(Object.keys(data)).toEqual(expect.arrayContaining(['CHIRP_USER', 'CHIRP_PASS', 'BLUEJAY_API_KEY']));
    expect(data.CHIRP_PASS).toBe('change-me');
    expect(Object.keys(data).filter((k) => k.startsWith('AWS_'))).toEqual([]);
  });
});

// -------------------------------------------------------------------------------------------
// Cloud Run, Railway, Fly: each recipe against the platform's documented limits (docs/deploy.md).

describe('Cloud Run (deploy/cloudrun.yaml)', () => {
  const service = ofKind(docs('deploy/cloudrun.yaml'), 'Service');
  const template = obj(obj(service.spec).template);
  const annotations = obj(obj(template.metadata).annotations);
  const spec = obj(template.spec);
  const container = obj(arr(spec.containers)[0]);
  const mountOf = (path: unknown): Obj => obj(arr(container.volumeMounts).find((m) => obj(m).mountPath === path));
  const volumeOf = (path: unknown): Obj => obj(arr(spec.volumes).find((v) => obj(v).name === mountOf(path).name));

  it('a call is one request: 3600 s timeout, session affinity, concurrency = MIVAS_MAX_CALLS, CPU always allocated', () => {
    expect(spec.timeoutSeconds).toBe(3600);
    expect(annotations['run.googleapis.com/sessionAffinity']).toBe('true');
    expect(annotations['run.googleapis.com/cpu-throttling']).toBe('false');
    expect(spec.containerConcurrency).toBe(Number(envOf(container, 'MIVAS_MAX_CALLS')));
    expect(Number(envOf(container, 'MIVAS_MAX_CALL_S'))).toBeLessThan(Number(spec.timeoutSeconds));
  });

  it('listens where Cloud Run sends requests, and starts on /health', () => {
    expect(arr(container.ports).map((p) => obj(p).containerPort)).toEqual([Number(envOf(container, 'MIVAS_PORT'))]);
    expect(obj(obj(container.startupProbe).httpGet).path).toBe('/health');
  });

  it('the data directory is a size-limited volume, and snapshots go to a bucket without keys', () => {
    // Not the built-in in-memory filesystem: a volume whose size limit makes writes fail first.
    expect(obj(volumeOf(envOf(container, 'MIVAS_DATA_DIR')).emptyDir).sizeLimit).toBeDefined();
    const snapshots = obj(volumeOf(envOf(container, 'MIVAS_SNAPSHOT_DIR')).csi);
    expect(snapshots.driver).toBe('gcsfuse.run.googleapis.com');
    expect(obj(snapshots.volumeAttributes).bucketName).toBeTruthy();
    expect(snapshots.readOnly).toBe(false);
    // Volume mounts need the second generation execution environment.
    expect(annotations['run.googleapis.com/execution-environment']).toBe('gen2');
    expect(JSON.stringify(container.env)).not.toMatch(/AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY/);
  });

  it('the drain and the outbox flush fit in the 10 s Cloud Run gives between SIGTERM and SIGKILL', () => {
    // The Bluejay link flush does not fit: pending links are lost with the instance (docs/deploy.md).
    expect(Number(envOf(container, 'MIVAS_DRAIN_S')) + shutdownBoundsS().outboxFlush).toBeLessThan(10);
  });
});

describe('Railway (railway.toml + deploy/railway.variables.env)', () => {
  const railway = parseToml(read('railway.toml'));
  const deploy = obj(railway.deploy);
  const vars = parseEnvFile(read('deploy/railway.variables.env'));

  it('Dockerfile builder, /health check, restart policy', () => {
    expect(obj(railway.build)).toMatchObject({ builder: 'DOCKERFILE', dockerfilePath: 'Dockerfile' });
    expect(deploy).toMatchObject({ healthcheckPath: '/health', restartPolicyType: 'ON_FAILURE' });
  });

  it('with a volume: one replica, no deploy overlap, root for the root-owned volume', () => {
    expect(deploy.numReplicas ?? 1).toBe(1);
    expect(deploy.overlapSeconds ?? 0).toBe(0);
    expect(vars.MIVAS_DATA_DIR).toBe('/data');
    expect(vars.RAILWAY_RUN_UID).toBe('0');
  });

  it('PORT is honoured: Railway routes and health-checks PORT, mivas reads MIVAS_PORT from it', () => {
    expect(vars.MIVAS_PORT).toBe('${{PORT}}');
    expect(Number(vars.PORT)).toBeGreaterThan(0);
  });

  it('calls end before the 15-minute edge cap, and the draining window outlasts the drain', () => {
    const edgeCapS = 15 * 60;
    expect(Number(vars.MIVAS_MAX_CALL_S)).toBeLessThan(edgeCapS);
    expect(Number(vars.MIVAS_DRAIN_S)).toBeGreaterThanOrEqual(Number(vars.MIVAS_MAX_CALL_S));
    expect(Number(deploy.drainingSeconds)).toBeGreaterThan(Number(vars.MIVAS_DRAIN_S) + shutdownTailS());
  });
});

describe('Fly.io (fly.toml)', () => {
  const fly = parseToml(read('fly.toml'));
  const env = obj(fly.env);
  const http = obj(fly.http_service);
  const seconds = (v: unknown): number => Number.parseInt(String(v), 10);

  it('port 8765, /health check, connection limit = MIVAS_MAX_CALLS, Machines never auto-stopped', () => {
    expect(http.internal_port).toBe(Number(env.MIVAS_PORT));
    expect(obj(arr(http.checks)[0]).path).toBe('/health');
    expect(obj(http.concurrency)).toMatchObject({ type: 'connections', hard_limit: Number(env.MIVAS_MAX_CALLS) });
    expect(http.auto_stop_machines).toBe('off');
  });

  it('kill_timeout outlasts the drain and stays within the limit of the Machine size', () => {
    const killTimeout = seconds(fly.kill_timeout);
    expect(fly.kill_signal).toBe('SIGTERM');
    expect(killTimeout).toBeGreaterThan(Number(env.MIVAS_DRAIN_S) + shutdownTailS());
    const dedicated = String(obj(arr(fly.vm)[0]).size).startsWith('performance');
    expect(killTimeout).toBeLessThanOrEqual(dedicated ? 24 * 3600 : 300);
  });

  it('the data directory is the volume mount, deployed with a strategy volumes allow', () => {
    expect(obj(arr(fly.mounts)[0]).destination).toBe(env.MIVAS_DATA_DIR);
    expect(['rolling', 'immediate']).toContain(obj(fly.deploy).strategy);
  });
});

describe('manifest readers reject what they do not understand', () => {
  it('throws on unknown TOML values, bad .env lines and broken YAML', () => {
    expect(() => parseToml('a = nope\n')).toThrow();
    expect(() => parseEnvFile('not a variable\n')).toThrow();
    expect(() => parseEnvFile('A=1\nA=2\n')).toThrow();
    expect(() => parseManifests('a: [1, 2\n')).toThrow();
    expect(parseDocument('a: 1').toJS()).toEqual({ a: 1 });
  });
});

describe('RL replica routing (deploy/nginx/mivas-rl.conf and k8s/components/rl-router)', () => {
  /** The three maps that read the owning replica out of a request, as text. */
  const replicaMaps = (file: string): string[] => [...read(file).matchAll(/^map [^\n]*\$mivas_replica(?:_by_path|_by_cookie)? \{\n(?:.*\n)*?\}$/gm)].map((m) => m[0]);

  it('both configs read the owner the same way, with the episode-id pattern the desk mints', () => {
    const plain = replicaMaps('deploy/nginx/mivas-rl.conf');
    expect(plain).toHaveLength(3);
    expect(replicaMaps('k8s/components/rl-router/mivas-rl.conf')).toEqual(plain);
    // Same replica syntax as MIVAS_RL_REPLICA (src/config.ts) and replicaOfEpisode (src/episodes/episode-desk.ts).
    expect(read('src/config.ts')).toContain('/^[a-z0-9][a-z0-9-]{0,30}$/');
    expect(read('src/episodes/episode-desk.ts')).toContain('/^ep_([a-z0-9][a-z0-9-]{0,30})_[0-9a-f]+$/');
    for (const map of plain.slice(0, 2)) expect(map).toContain('ep_([a-z0-9][a-z0-9-]{0,30})_[0-9a-f]+');
  });
});

/**
 * Validates the Kubernetes manifests under k8s/ without a cluster (docs/deploy.md, "What was
 * validated here"):
 *
 * 1. every kustomization that is not a Component (the base, every overlay, and any other directory
 *    with a kustomization.yaml, such as a later jobs/ overlay) is rendered by the real kustomize:
 *    `kustomize build` when that binary is on PATH, else `kubectl kustomize`;
 * 2. every rendered object is checked against its JSON schema: kubernetes-models for the built-in
 *    kinds (generated from the Kubernetes OpenAPI), @kubernetes-models/gateway-api and
 *    @kubernetes-models/keda for the CRDs. An object whose kind has no schema package fails;
 * 3. those schemas accept fields they do not declare (the OpenAPI has no additionalProperties:
 *    false), so a misspelt field such as `readinesProbe` would pass silently. Every object is also
 *    type-checked against the same packages' TypeScript declarations, whose excess-property check
 *    refuses any field the type does not declare;
 * 4. every pod template is checked against the Pod Security "restricted" profile, written from the
 *    published rules: https://kubernetes.io/docs/concepts/security/pod-security-standards/
 *
 * Run: `node --import tsx scripts/validate-k8s.ts` (exit 0 = valid, 1 = problems, 2 = kustomize not
 * found). `npm test` runs the same checks (test/integration/ops-manifests.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

export const ROOT = resolve(import.meta.dirname, '..');
export const K8S_DIR = join(ROOT, 'k8s');

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A Kubernetes object as rendered: apiVersion, kind and metadata.name are checked by the schema. */
export type Manifest = Obj & { apiVersion: string; kind: string };

// ---------------------------------------------------------------------------------------------
// Rendering

/** How kustomize is run here, or why it cannot be. */
export type Kustomize = { readonly argv: readonly string[] } | { readonly missing: string };

function onPath(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** `kustomize build`, else `kubectl kustomize` (kubectl has embedded kustomize since 1.14). */
export function findKustomize(): Kustomize {
  if (onPath('kustomize', ['version'])) return { argv: ['kustomize', 'build'] };
  if (onPath('kubectl', ['kustomize', '--help'])) return { argv: ['kubectl', 'kustomize'] };
  return { missing: 'neither kustomize nor kubectl is on PATH, so the overlays cannot be rendered' };
}

/** Directories under k8s/ with a kustomization.yaml, split into Kustomizations and Components. */
export function kustomizationDirs(root = K8S_DIR): { kustomizations: string[]; components: string[] } {
  const kustomizations: string[] = [];
  const components: string[] = [];
  const walk = (dir: string): void => {
    const file = join(dir, 'kustomization.yaml');
    if (existsSync(file)) {
      const kind = obj(parseAllDocuments(readFileSync(file, 'utf8'))[0]?.toJS()).kind;
      (kind === 'Component' ? components : kustomizations).push(dir);
    }
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
    }
  };
  walk(root);
  return { kustomizations: kustomizations.sort(), components: components.sort() };
}

/** Renders one kustomization directory with the real kustomize. */
export function render(kustomize: { readonly argv: readonly string[] }, dir: string): string {
  const [cmd, ...args] = kustomize.argv;
  return execFileSync(cmd as string, [...args, dir], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Parses a multi-document YAML stream; any YAML error throws. Empty documents are dropped. */
export function parseManifests(text: string, source = 'input'): Manifest[] {
  const out: Manifest[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new Error(`${source}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) continue;
    const o = obj(value);
    if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') throw new Error(`${source}: a document without apiVersion and kind`);
    out.push(o as Manifest);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// JSON schema (kubernetes-models)

/** The model packages of API groups that are not built into Kubernetes. */
const CRD_PACKAGES: Readonly<Record<string, string>> = {
  'gateway.networking.k8s.io': '@kubernetes-models/gateway-api',
  'keda.sh': '@kubernetes-models/keda',
};

/** The module that holds the model (and the TypeScript interface) of one apiVersion + kind. */
export function modelModule(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const pkg = CRD_PACKAGES[group] ?? 'kubernetes-models';
  return `${pkg}/${apiVersion}/${kind}`;
}

interface ModelClass {
  new (data: unknown): { validate(): void };
}

/** Schema errors of one object ([] = valid). A kind without a schema package is an error too. */
export async function schemaErrors(m: Manifest): Promise<string[]> {
  let Model: ModelClass | undefined;
  try {
    const mod = (await import(modelModule(m.apiVersion, m.kind))) as Record<string, unknown>;
    Model = mod[m.kind] as ModelClass | undefined;
  } catch {
    Model = undefined;
  }
  if (!Model) return [`no JSON schema for ${m.apiVersion} ${m.kind}: add its @kubernetes-models package to scripts/validate-k8s.ts`];
  try {
    new Model(m).validate();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

// ---------------------------------------------------------------------------------------------
// Fields the types do not declare (TypeScript excess-property check)

/**
 * Type-checks every object as a literal of its model's interface (`I<Kind>`). Returns the errors
 * of each object, in input order. One program for all objects: about half a second.
 */
export function unknownFieldErrors(manifests: readonly Manifest[]): string[][] {
  const file = join(ROOT, 'scripts', '__k8s_field_check__.ts');
  const lines: string[] = [];
  const owner: number[] = [];
  const push = (text: string, index: number): void => {
    for (const line of text.split('\n')) {
      lines.push(line);
      owner.push(index);
    }
  };
  manifests.forEach((m, i) => {
    push(`import type { I${m.kind} as T${i} } from '${modelModule(m.apiVersion, m.kind)}';`, i);
  });
  manifests.forEach((m, i) => {
    push(`export const r${i}: T${i} = ${JSON.stringify(m, null, 2)};`, i);
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, language, ...rest) => (resolve(name) === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest));
  host.fileExists = (name) => resolve(name) === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const out: string[][] = manifests.map(() => []);
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (d.file && d.start !== undefined && resolve(d.file.fileName) === file) {
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      const index = owner[line] ?? 0;
      const text = (lines[line] ?? '').trim();
      out[index]?.push(`${message} (at ${text.slice(0, 80)})`);
    } else {
      out[0]?.push(message);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Pod Security Standards, "restricted" (which includes "baseline")

/** The pod spec inside a workload, or undefined for kinds without pods. */
export function podSpecOf(m: Manifest): { spec: Obj; annotations: Obj } | undefined {
  const spec = obj(m.spec);
  const fromTemplate = (template: unknown) => ({ spec: obj(obj(template).spec), annotations: obj(obj(obj(template).metadata).annotations) });
  switch (m.kind) {
    case 'Pod':
      return { spec, annotations: obj(obj(m.metadata).annotations) };
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
    case 'ReplicationController':
    case 'Job':
      return fromTemplate(spec.template);
    case 'CronJob':
      return fromTemplate(obj(obj(spec.jobTemplate).spec).template);
    default:
      return undefined;
  }
}

const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
const RESTRICTED_VOLUME_TYPES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);
const SECCOMP_RESTRICTED = new Set(['RuntimeDefault', 'Localhost']);

/**
 * Violations of the "restricted" profile (latest version) by one pod spec, each naming the rule.
 * Every control of the published table is checked: baseline's host process, host namespaces,
 * privileged, capabilities, hostPath, host ports, AppArmor, SELinux, /proc mount, seccomp and
 * sysctls; restricted's volume types, privilege escalation, non-root, non-root user, seccomp and
 * capabilities.
 */
export function restrictedViolations(pod: { spec: Obj; annotations: Obj }): string[] {
  const v: string[] = [];
  const { spec, annotations } = pod;
  const podSc = obj(spec.securityContext);
  const containers = [
    ...arr(spec.containers).map((c) => ['container', obj(c)] as const),
    ...arr(spec.initContainers).map((c) => ['initContainer', obj(c)] as const),
    ...arr(spec.ephemeralContainers).map((c) => ['ephemeralContainer', obj(c)] as const),
  ];

  // Baseline: host process, host namespaces.
  if (obj(podSc.windowsOptions).hostProcess === true) v.push('HostProcess: spec.securityContext.windowsOptions.hostProcess must be unset or false');
  for (const ns of ['hostNetwork', 'hostPID', 'hostIPC']) if (spec[ns] === true) v.push(`Host namespaces: spec.${ns} must be unset or false`);
  // Baseline: hostPath volumes; restricted: only the listed volume types.
  for (const vol of arr(spec.volumes).map(obj)) {
    const types = Object.keys(vol).filter((k) => k !== 'name');
    if (types.includes('hostPath')) v.push(`HostPath volumes: volume ${String(vol.name)} uses hostPath`);
    for (const t of types) if (!RESTRICTED_VOLUME_TYPES.has(t)) v.push(`Volume types: volume ${String(vol.name)} is of type ${t}`);
  }
  // Baseline: AppArmor annotations, sysctls; pod-level SELinux, seccomp, AppArmor, runAsUser.
  for (const [key, value] of Object.entries(annotations)) {
    if (key.startsWith('container.apparmor.security.beta.kubernetes.io/') && !(value === 'runtime/default' || String(value).startsWith('localhost/'))) {
      v.push(`AppArmor: annotation ${key} is ${String(value)}`);
    }
  }
  for (const s of arr(podSc.sysctls).map(obj)) if (!SAFE_SYSCTLS.has(String(s.name))) v.push(`Sysctls: ${String(s.name)} is not in the safe set`);
  const checkShared = (where: string, sc: Obj): void => {
    const appArmor = obj(sc.appArmorProfile).type;
    if (appArmor !== undefined && appArmor !== 'RuntimeDefault' && appArmor !== 'Localhost') v.push(`AppArmor: ${where}.appArmorProfile.type is ${String(appArmor)}`);
    const se = obj(sc.seLinuxOptions);
    if (se.type !== undefined && !SELINUX_TYPES.has(String(se.type))) v.push(`SELinux: ${where}.seLinuxOptions.type is ${String(se.type)}`);
    if (se.user !== undefined || se.role !== undefined) v.push(`SELinux: ${where}.seLinuxOptions.user and role must be unset`);
    if (obj(sc.seccompProfile).type === 'Unconfined') v.push(`Seccomp: ${where}.seccompProfile.type must not be Unconfined`);
    if (sc.runAsUser === 0) v.push(`Running as non-root user: ${where}.runAsUser must not be 0`);
  };
  checkShared('spec.securityContext', podSc);
  const podNonRoot = podSc.runAsNonRoot === true;
  const podSeccomp = SECCOMP_RESTRICTED.has(String(obj(podSc.seccompProfile).type));

  for (const [role, c] of containers) {
    const name = `${role} ${String(c.name)}`;
    const sc = obj(c.securityContext);
    checkShared(`${name} securityContext`, sc);
    if (obj(sc.windowsOptions).hostProcess === true) v.push(`HostProcess: ${name} sets windowsOptions.hostProcess`);
    if (sc.privileged === true) v.push(`Privileged containers: ${name} is privileged`);
    if (sc.procMount !== undefined && sc.procMount !== 'Default') v.push(`/proc mount type: ${name} sets procMount ${String(sc.procMount)}`);
    for (const p of arr(c.ports).map(obj)) if (p.hostPort !== undefined && p.hostPort !== 0) v.push(`Host ports: ${name} uses hostPort ${String(p.hostPort)}`);
    // Restricted.
    if (sc.allowPrivilegeEscalation !== false) v.push(`Privilege escalation: ${name} must set allowPrivilegeEscalation: false`);
    if (sc.runAsNonRoot === false || (sc.runAsNonRoot !== true && !podNonRoot)) v.push(`Running as non-root: ${name} must run with runAsNonRoot: true (pod or container)`);
    const seccomp = obj(sc.seccompProfile).type;
    if (seccomp === undefined ? !podSeccomp : !SECCOMP_RESTRICTED.has(String(seccomp))) v.push(`Seccomp: ${name} needs seccompProfile RuntimeDefault or Localhost (pod or container)`);
    const caps = obj(sc.capabilities);
    if (!arr(caps.drop).includes('ALL')) v.push(`Capabilities: ${name} must drop ALL`);
    for (const cap of arr(caps.add)) {
      if (cap !== 'NET_BIND_SERVICE') v.push(`Capabilities: ${name} adds ${String(cap)}${BASELINE_CAPABILITIES.has(String(cap)) ? '' : ' (not even allowed by baseline)'}`);
    }
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// The whole check

export interface Finding {
  readonly source: string;
  readonly object: string;
  readonly problem: string;
}

/** Runs checks 2-4 on a set of objects from one source (a rendered overlay or a file). */
export async function checkManifests(source: string, manifests: readonly Manifest[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  const name = (m: Manifest): string => `${m.kind}/${String(obj(m.metadata).name)}`;
  for (const m of manifests) for (const problem of await schemaErrors(m)) findings.push({ source, object: name(m), problem: `schema: ${problem}` });
  const typed = manifests.filter((m) => !findings.some((f) => f.object === name(m) && f.problem.startsWith('schema: no JSON schema')));
  unknownFieldErrors(typed).forEach((problems, i) => {
    for (const problem of problems) findings.push({ source, object: name(typed[i] as Manifest), problem: `fields: ${problem}` });
  });
  for (const m of manifests) {
    const pod = podSpecOf(m);
    if (pod) for (const problem of restrictedViolations(pod)) findings.push({ source, object: name(m), problem: `restricted: ${problem}` });
  }
  return findings;
}

/** Renders every kustomization under k8s/ and checks what it renders. */
export async function validateAll(kustomize: { readonly argv: readonly string[] }): Promise<{ rendered: Record<string, Manifest[]>; findings: Finding[] }> {
  const rendered: Record<string, Manifest[]> = {};
  const findings: Finding[] = [];
  for (const dir of kustomizationDirs().kustomizations) {
    const source = relative(ROOT, dir);
    const manifests = parseManifests(render(kustomize, dir), source);
    rendered[source] = manifests;
    findings.push(...(await checkManifests(source, manifests)));
  }
  return { rendered, findings };
}

async function main(): Promise<number> {
  const kustomize = findKustomize();
  if ('missing' in kustomize) {
    process.stderr.write(`validate-k8s: ${kustomize.missing}\n`);
    return 2;
  }
  const { rendered, findings } = await validateAll(kustomize);
  for (const [source, manifests] of Object.entries(rendered)) process.stdout.write(`${source}: ${manifests.length} objects\n`);
  for (const f of findings) process.stdout.write(`${f.source} ${f.object}: ${f.problem}\n`);
  process.stdout.write(findings.length ? `${findings.length} problem(s)\n` : 'all manifests valid (schema, fields, Pod Security restricted)\n');
  return findings.length ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main();
}

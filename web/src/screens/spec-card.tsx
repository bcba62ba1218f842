/**
 * The endpoint's document: an OpenAPI document or gRPC descriptors (a .proto or a descriptor set),
 * uploaded and processed by a background job; the operations or the gRPC methods found; remove; and,
 * beside an OpenAPI document, the setting `openapi.validation` (contract checking: off, report, enforce).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, enc } from '../api';
import { ConfirmButton, ErrorBox } from '../ui';

interface Operation {
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
}
interface OpenapiSpec {
  type: 'openapi';
  title: string;
  version: string;
  specVersion: string;
  operations: Operation[];
}
interface GrpcSpec {
  type: 'grpc';
  syntax: string;
  files: string[];
  services: { name: string; methods: { name: string; callType: string }[] }[];
}
type Spec = OpenapiSpec | GrpcSpec;
interface Job {
  jobId: string;
  status: string;
  message: string;
  progress?: number;
}

export type ValidationMode = 'off' | 'report' | 'enforce';
const MODES: { value: ValidationMode; label: string }[] = [
  { value: 'off', label: 'off: not checked' },
  { value: 'report', label: 'report: recorded in the history' },
  { value: 'enforce', label: 'enforce: refused with 422 (401, 415)' },
];

/** `openapi.validation`, saved on its own as every settings group is. */
function ValidationSetting(props: { mode: ValidationMode; save: (mode: ValidationMode) => Promise<void> }) {
  const [mode, setMode] = useState(props.mode);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => setMode(props.mode), [props.mode]);
  return (
    <form
      class="stack"
      data-testid="settings-validation"
      onSubmit={(ev) => {
        ev.preventDefault();
        setError(null);
        setSaved(false);
        props.save(mode).then(
          () => setSaved(true),
          (e: unknown) => setError(e),
        );
      }}
    >
      <label>
        Contract checking: requests the document describes, and their answers, checked against it
        <select
          name="validation"
          value={mode}
          onChange={(e) => setMode(e.currentTarget.value as ValidationMode)}
        >
          {MODES.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <ErrorBox error={error} />
      <div class="row">
        <button type="submit">Save</button>
        {saved && <span class="muted small">Saved.</span>}
      </div>
    </form>
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function SpecCard(props: {
  ep: string;
  /** The endpoint's `openapi.validation` (`report` when not set). */
  validation: ValidationMode;
  saveValidation: (mode: ValidationMode) => Promise<void>;
}) {
  const base = `/endpoints/${enc(props.ep)}`;
  const [spec, setSpec] = useState<Spec | null>(null);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>(null);

  const load = async () => {
    try {
      setSpec((await api.get<{ data: Spec }>(`${base}/specs`)).data);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) setSpec(null);
      else setError(e);
    }
  };
  useEffect(() => {
    void load();
  }, [props.ep]);

  const upload = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    const form = new FormData();
    form.append('file', file, file.name);
    try {
      let job = await api.post<Job>(`${base}/specs`, form);
      setStatus(job.message);
      for (let i = 0; i < 600 && (job.status === 'QUEUED' || job.status === 'PROCESSING'); i++) {
        await sleep(250);
        job = await api.get<Job>(`${base}/jobs/${enc(job.jobId)}`);
        setStatus(`${job.message}${job.progress !== undefined ? ` (${job.progress}%)` : ''}`);
      }
      if (job.status === 'FAILED') throw new Error(job.message);
      setStatus('');
      await load();
    } catch (e) {
      setStatus('');
      setError(e);
    }
  };

  return (
    <section class="card" data-testid="settings-openapi">
      <h2>OpenAPI document or gRPC descriptors</h2>
      <p class="muted small">
        Requests no rule answers get an answer built from the matching operation's examples; gRPC calls no
        rule answers get a message generated from the method's output type.
      </p>
      <label>
        Upload a document (JSON or YAML) or a .proto / descriptor set
        <input
          type="file"
          name="spec"
          accept=".json,.yaml,.yml,.proto,.pb,.binpb,.desc,.protoset,application/json,application/yaml,text/yaml"
          onChange={(e) => {
            void upload(e.currentTarget.files?.[0]);
            e.currentTarget.value = '';
          }}
        />
      </label>
      {status && <p class="muted">{status}</p>}
      <ErrorBox error={error} />
      {spec && (
        <div data-testid="spec">
          <p>
            {spec.type === 'grpc' ? (
              <>
                <strong>{spec.files[spec.files.length - 1]}</strong>{' '}
                <span class="muted small">(gRPC, {spec.syntax})</span>
              </>
            ) : (
              <>
                <strong>{spec.title}</strong> {spec.version}{' '}
                <span class="muted small">(OpenAPI {spec.specVersion})</span>
              </>
            )}{' '}
            <ConfirmButton
              label="Remove"
              confirm="Remove the document?"
              onConfirm={() =>
                void api.del(`${base}/specs`).then(
                  () => setSpec(null),
                  (e: unknown) => setError(e),
                )
              }
            />
          </p>
          {spec.type === 'openapi' && (
            <ValidationSetting mode={props.validation} save={props.saveValidation} />
          )}
          <table class="kv" data-testid="operations">
            <tbody>
              {spec.type === 'grpc'
                ? spec.services.flatMap((sv) =>
                    sv.methods.map((m) => (
                      <tr key={`${sv.name}/${m.name}`}>
                        <th class="mono">{sv.name}</th>
                        <td class="mono">{m.name}</td>
                        <td class="muted">{m.callType}</td>
                      </tr>
                    )),
                  )
                : spec.operations.map((o, i) => (
                    <tr key={i}>
                      <th>
                        <span class={`method m-${o.method.toLowerCase()}`}>{o.method.toUpperCase()}</span>
                      </th>
                      <td class="mono">{o.path}</td>
                      <td class="muted">{o.summary ?? o.operationId ?? ''}</td>
                    </tr>
                  ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/**
 * The endpoint's resilience settings (docs/resilience.md), two cards of the settings screen: `chaos`
 * (a share of the answered requests delayed and/or broken, reproducible with a seed) and `faults` (a
 * fault instead of every proxied or tunnelled answer, after the upstream answered). A field left empty
 * is sent as null, which removes it.
 */
import { useState } from 'preact/hooks';
import { DelayFields, FaultSelect, type Delay } from './fault-fields';
import { Group } from './settings-group';

export interface ChaosT {
  percent: number;
  fault?: string;
  delay?: Delay;
  seed?: number;
}
export interface FaultsT {
  proxy?: string;
  tunnel?: string;
}

export function ChaosCards(props: {
  chaos: ChaosT;
  faults: FaultsT;
  patch: (body: Record<string, unknown>) => Promise<void>;
}) {
  const [chaos, setChaos] = useState<ChaosT>(props.chaos);
  const [seedText, setSeedText] = useState(props.chaos.seed === undefined ? '' : String(props.chaos.seed));
  const [faults, setFaults] = useState<FaultsT>(props.faults);
  const saveChaos = () =>
    props.patch({
      chaos: {
        percent: chaos.percent,
        fault: chaos.fault ?? null,
        delay: chaos.delay ?? null,
        seed: seedText.trim() === '' ? null : Number(seedText),
      },
    });
  return (
    <>
      <Group title="Chaos" testid="settings-chaos" save={saveChaos}>
        <p class="muted small">
          A share of the requests answered past the guards waits the delay and/or gets the fault instead of
          its answer. With a seed, which requests are hit repeats after each save.
        </p>
        <div class="row">
          <label>
            Percent
            <input
              name="chaos-percent"
              type="number"
              step="any"
              value={String(chaos.percent)}
              onInput={(e) => setChaos({ ...chaos, percent: Number(e.currentTarget.value) })}
            />
          </label>
          <FaultSelect
            name="chaos-fault"
            label="Fault"
            value={chaos.fault}
            onChange={(fault) => setChaos({ ...chaos, fault })}
          />
          <label>
            Seed
            <input
              name="chaos-seed"
              type="number"
              min={0}
              placeholder="random"
              value={seedText}
              onInput={(e) => setSeedText(e.currentTarget.value)}
            />
          </label>
        </div>
        <DelayFields
          name="chaos-delay"
          label="Extra delay"
          optional
          value={chaos.delay}
          onChange={(delay) => setChaos({ ...chaos, delay })}
        />
      </Group>
      <Group
        title="Faults on proxied and tunnelled answers"
        testid="settings-faults"
        save={() => props.patch({ faults: { proxy: faults.proxy ?? null, tunnel: faults.tunnel ?? null } })}
      >
        <p class="muted small">
          The upstream is asked and answers; the client gets the fault instead: the case a retry of a
          non-idempotent call must survive.
        </p>
        <div class="row">
          <FaultSelect
            name="faults-proxy"
            label="Proxy"
            value={faults.proxy}
            onChange={(proxy) => setFaults({ ...faults, proxy })}
          />
          <FaultSelect
            name="faults-tunnel"
            label="Tunnel"
            value={faults.tunnel}
            onChange={(tunnel) => setFaults({ ...faults, tunnel })}
          />
        </div>
      </Group>
    </>
  );
}

// OpenFeature's own context and client types as cutover's contexts and clients (TS2345 before:
// "Property 'key' is missing"). @openfeature/core's EvaluationContext is the one both SDKs export;
// the server SDK's client and LaunchDarkly's LDContext: clients/real-clients.ts (they need Node's types).
import type { EvaluationContext } from '@openfeature/core';
import { OpenFeature } from '@openfeature/web-sdk';
import { MigratorBuilder, fixedStage, openFeatureClient, type Context, type MigrationClient } from 'cutover';

const migrator = new MigratorBuilder(fixedStage('off'))
  .read(async (id: string) => id, async (id) => id)
  .write(async () => true, async () => true)
  .build();

declare const evaluationContext: EvaluationContext;
export const fromDeclared = migrator.read('flag', evaluationContext, 'off', 'id-1');
const withTargetingKey: EvaluationContext = { targetingKey: 'user-123', plan: 'pro', signedUp: new Date() };
export const fromLiteral = migrator.read('flag', withTargetingKey, 'off', 'id-1');
export const asContext: Context = evaluationContext;
const multi: EvaluationContext = { kind: 'multi', user: { targetingKey: 'u1' }, org: { targetingKey: 'o1' } };
export const fromMulti = migrator.read('flag', multi, 'off', 'id-1');

// OpenFeature's web client as a flag client.
export const web: MigrationClient = openFeatureClient(OpenFeature.getClient());

// @ts-expect-error targetingKey is a string
migrator.read('flag', { targetingKey: 1 }, 'off', 'id-1');
// @ts-expect-error a context with a kind needs a key or a targetingKey
migrator.read('flag', { kind: 'org', name: 'Acme' }, 'off', 'id-1');
// @ts-expect-error an OpenFeature provider is not a client
openFeatureClient(OpenFeature.getProvider());

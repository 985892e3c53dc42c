// The flags LaunchDarkly serves to the docs' blocks (TestData): `beta-ui` is true for the members
// of the Big Segment `beta-testers` (generation 3, so its ref is `beta-testers.g3`, the ref the
// docs' environment stores for user-123), false for everyone else.
export const BETA_TESTERS = { key: 'beta-testers', generation: 3 };

export async function docsTestData(TestData) {
  const td = new TestData();
  await td.usePreconfiguredSegment({
    key: BETA_TESTERS.key,
    version: 1,
    unbounded: true,
    generation: BETA_TESTERS.generation,
    included: [],
    excluded: [],
    rules: [],
    salt: 'docs',
  });
  await td.usePreconfiguredFlag({
    key: 'beta-ui',
    version: 1,
    on: true,
    salt: 'docs',
    variations: [false, true],
    offVariation: 0,
    fallthrough: { variation: 0 },
    targets: [],
    contextTargets: [],
    prerequisites: [],
    rules: [
      {
        id: 'beta-testers',
        variation: 1,
        clauses: [{ contextKind: 'user', attribute: 'key', op: 'segmentMatch', values: [BETA_TESTERS.key], negate: false }],
      },
    ],
  });
  return td;
}

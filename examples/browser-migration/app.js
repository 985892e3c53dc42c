// The example page: a search box migrating from /api/search/old to /api/search/new.
// - The stage comes from the flag `search-migration`, read by LaunchDarkly's browser SDK from
//   bootstrap data (in your app, your server renders it with a server SDK's allFlagsState()).
// - background(): in shadow, the old endpoint's answer is shown as soon as it arrives; the new
//   endpoint is called too and compared afterwards, off the visitor's path.
// - sameStructure() compares the answers (ignoring the timing field), and mismatches() keeps what
//   differed, shown in the differences list.
// - Each operation makes a migration_op event; beaconSink sends them home in batches (and with
//   sendBeacon when the page is hidden or left), to the server's migrationEventRelay, which
//   forwards them to LaunchDarkly.
import { MigratorBuilder, beaconSink, launchDarklyBrowserClient, sameStructure } from 'cutover';
import { createClient } from '@launchdarkly/js-client-sdk';

const FLAG = 'search-migration';
const CLIENT_SIDE_ID = 'your-client-side-id';
const $ = (id) => document.getElementById(id);

async function getJson(url, signal) {
  const response = await fetch(url, { signal });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}
const searchOld = (q, signal) => getJson(`/api/search/old?q=${encodeURIComponent(q)}`, signal);
const searchNew = (q, signal) => getJson(`/api/search/new?q=${encodeURIComponent(q)}`, signal);

// The visitor, and the flags your server evaluated for them (with reasons: LaunchDarkly drops a
// migration event without one).
const context = { kind: 'user', key: 'visitor-1', anonymous: true };
const stageAsked = new URLSearchParams(location.search).get('stage');
const bootstrap = await getJson(`/api/flags${stageAsked ? `?stage=${encodeURIComponent(stageAsked)}` : ''}`);
const ldClient = createClient(CLIENT_SIDE_ID, context, {
  // This example talks to no LaunchDarkly service: bootstrap data only. A real page drops these
  // three lines to get live updates (streaming) and LaunchDarkly's own analytics.
  streaming: false,
  sendEvents: false,
  fetchGoals: false,
});
await ldClient.start({ bootstrap });

// The events go home: batched, posted to the server's relay (and beaconed when the page is left).
const home = beaconSink('/migration-events');
let made = 0;
function showEvents() {
  const { sent, failed, waiting } = home.stats();
  const e = $('events');
  Object.assign(e.dataset, { count: String(made), sent: String(sent), failed: String(failed) });
  e.textContent = `${made} migration_op event${made === 1 ? '' : 's'} made: ${sent} sent home, ${waiting} waiting, ${failed} failed.`;
}
function events(event) {
  made += 1;
  home(event);
  showEvents();
}
$('send').addEventListener('click', () => home.flush().then(showEvents));

const migrator = new MigratorBuilder(launchDarklyBrowserClient(ldClient, { events }))
  .read(searchOld, searchNew, sameStructure({ ignore: ['/tookMs'] }))
  .write(async () => {}, async () => {}) // the search box writes nothing; build() asks for both
  .background()
  .mismatches({ keep: 10 })
  .build();

const text = (value) => (typeof value === 'string' ? value : JSON.stringify(value));

function showResults(q, result) {
  const list = $('results');
  list.replaceChildren();
  list.dataset.query = q;
  $('served').textContent = result.success
    ? `Served by the ${result.origin} endpoint.`
    : `The ${result.origin} endpoint failed: ${result.error?.message ?? result.error}`;
  $('served').dataset.origin = result.origin;
  for (const item of result.success ? result.value.items : []) {
    const li = document.createElement('li');
    li.append(`${item.title} `);
    const price = document.createElement('span');
    price.textContent = `${item.price.toFixed(2)} €`;
    li.append(price);
    list.append(li);
  }
}

function showDifferences() {
  const { checked, consistent } = migrator.stats().read.consistency;
  $('checks').textContent = `${checked} comparison${checked === 1 ? '' : 's'}, ${consistent} identical.`;
  $('checks').dataset.checked = String(checked);
  const list = $('differences');
  list.replaceChildren();
  for (const mismatch of migrator.mismatches()) {
    for (const d of mismatch.differences) {
      const li = document.createElement('li');
      li.dataset.path = d.path;
      li.textContent = `“${mismatch.old.query}”: ${d.path} ${d.kind}, old ${text(d.old)}, new ${text(d.new)}`;
      list.append(li);
    }
  }
}

$('stage').textContent = String(ldClient.variation(FLAG, 'off'));
$('search').addEventListener('submit', async (event) => {
  event.preventDefault();
  const q = $('q').value.trim();
  const result = await migrator.read(FLAG, ldClient.getContext(), 'off', q);
  showResults(q, result);
  // The comparison ends after the answer is shown (background()); the list follows it.
  migrator.settled().then(showDifferences);
});
document.body.dataset.ready = 'true';

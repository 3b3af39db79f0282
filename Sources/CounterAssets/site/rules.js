// The rules both counters follow, from counter-rules.json (the file `peez counter` reads too): the price, the
// months sold, the clock tolerance, the trust data's warning age, the time range, the scan-report batch, the scan
// log's chain genesis, how often the page syncs and which refusals cut it off. Loaded once, before any module that
// uses them runs.
const response = await fetch(new URL("counter-rules.json", import.meta.url));
if (!response.ok) throw new Error(`counter-rules.json could not be loaded (${response.status})`);
const rules = await response.json();

export const MONTHLY_PRICE_DZD = rules.monthly_price_dzd;
export const MONTHS_SOLD = Object.freeze([...rules.months_sold]);
export const CLOCK_TOLERANCE = rules.clock_tolerance;
export const TRUST_WARNING_AGE = rules.trust_warning_age;
export const TIME_RANGE = Object.freeze([...rules.time_range]);
export const SCAN_REPORT_BATCH = rules.scan_report_batch;
export const SCAN_LOG_GENESIS = rules.scan_log_genesis;
export const SYNC_EVERY_SECONDS = rules.sync_every;
// The development key (its private half is public): trusted only by a counter enrolled against a development service.
export const DEVELOPMENT_KEY_ID = rules.development_key_id;
// The service's error codes that refuse this device's own credential (revoked, or replaced): the counter is cut off.
export const DEVICE_REFUSALS = Object.freeze([...rules.device_refusals]);

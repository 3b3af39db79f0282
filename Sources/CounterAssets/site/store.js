// What the web counter keeps in the browser (IndexedDB): its settings and vendor secret, the signed bundles it
// accepted, the hash-chained scan log and the sale journal; once PEEZ cut it off, the cut-off mark and the sales
// whose cash goes back, nothing else. Each write is one transaction, awaited to its end.

const NAME = "peez-counter";
const VERSION = 1;

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function done(transaction) {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error ?? new Error("the browser's storage refused the write"));
  });
}

export class CounterStore {
  static async open() {
    const opening = indexedDB.open(NAME, VERSION);
    opening.onupgradeneeded = () => {
      const db = opening.result;
      db.createObjectStore("settings");
      db.createObjectStore("scans", { keyPath: "seq" });
      db.createObjectStore("sales", { keyPath: "key" });
    };
    return new CounterStore(await request(opening));
  }

  constructor(db) {
    this.db = db;
  }

  async get(key) {
    return request(this.db.transaction("settings").objectStore("settings").get(key));
  }

  /** Writes several settings in one transaction; a value `undefined` removes its setting. */
  async set(values) {
    const transaction = this.db.transaction("settings", "readwrite");
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) transaction.objectStore("settings").delete(key);
      else transaction.objectStore("settings").put(value, key);
    }
    await done(transaction);
  }

  /** Forgets, in one transaction, what a counter PEEZ cut off must not keep: its credential, its trust data (the
   *  bundles: members' names, renewals), its scan log (members seen) with its counter id and report mark, and every
   *  sale but `kept` (the ones whose cash goes back); keeps the cut-off `mark` and the shop's language. */
  async forgetAfterCutOff(mark, kept) {
    const transaction = this.db.transaction(["settings", "scans", "sales"], "readwrite");
    const settings = transaction.objectStore("settings");
    settings.put(mark, "cutOff");
    for (const key of ["secret", "state", "credentialID", "counterID", "reportedThrough"]) settings.delete(key);
    transaction.objectStore("scans").clear();
    transaction.objectStore("sales").clear();
    for (const sale of kept) transaction.objectStore("sales").put(sale);
    await done(transaction);
  }

  /** The last scan-log entry ({seq, hash, json}) or null. */
  async lastScan() {
    const cursor = await request(this.db.transaction("scans").objectStore("scans").openCursor(null, "prev"));
    return cursor ? cursor.value : null;
  }

  /** Adds an entry; fails if its seq is taken (another tab wrote first). */
  async addScan(record) {
    const transaction = this.db.transaction("scans", "readwrite");
    transaction.objectStore("scans").add(record);
    await done(transaction);
  }

  async scans(afterSeq = 0) {
    return request(this.db.transaction("scans").objectStore("scans").getAll(IDBKeyRange.lowerBound(afterSeq, true)));
  }

  async putSale(sale) {
    const transaction = this.db.transaction("sales", "readwrite");
    transaction.objectStore("sales").put(sale);
    await done(transaction);
  }

  async sales() {
    return request(this.db.transaction("sales").objectStore("sales").getAll());
  }
}

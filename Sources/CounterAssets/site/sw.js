// The web counter's service worker: after the first visit the page and its code come from this cache, so the
// counter opens and verifies with no network. The service's API (/v1/...) is never cached: trust data lives in
// IndexedDB, checked by signature, and sales must reach the service. The version below is the served files'
// hash, put in by `peez serve`: a new release brings a new cache and removes the old one.
const VERSION = "__PEEZ_COUNTER_VERSION__";
const CACHE = `peez-counter-${VERSION}`;
const FILES = __PEEZ_COUNTER_FILES__;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith("peez-counter-") && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin || !url.pathname.startsWith("/counter/")) return;
  const key = url.pathname === "/counter/" ? "/counter/index.html" : url.pathname;
  event.respondWith(caches.open(CACHE).then(async (cache) => (await cache.match(key)) ?? fetch(event.request)));
});

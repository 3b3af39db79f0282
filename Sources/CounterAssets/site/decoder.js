// Reads QR codes from camera frames and pictures: the browser's own BarcodeDetector where it has one for QR
// codes, otherwise ZBar compiled to WebAssembly from Debian's source (zbar.js and zbar.wasm, made by
// `make counter-decoder`). Both answer the texts of the codes found.

let decoder = null;

/** The decoder this browser uses: {name, decode(source) → Promise<[text]>}, source a video, an image bitmap or a canvas. */
export async function qrDecoder() {
  decoder ??= (await nativeDecoder()) ?? (await zbarDecoder());
  return decoder;
}

async function nativeDecoder() {
  if (!("BarcodeDetector" in globalThis)) return null;
  try {
    if (!(await BarcodeDetector.getSupportedFormats()).includes("qr_code")) return null;
  } catch {
    return null;
  }
  const detector = new BarcodeDetector({ formats: ["qr_code"] });
  return { name: "BarcodeDetector", decode: async (source) => (await detector.detect(source)).map((code) => code.rawValue) };
}

async function zbarDecoder() {
  const { default: createModule } = await import("./zbar.js");
  const zbar = await createModule();
  const canvas = new OffscreenCanvas(1, 1);
  const context = canvas.getContext("2d", { willReadFrequently: true });
  return {
    name: "zbar",
    decode: async (source) => {
      const width = source.videoWidth ?? source.width;
      const height = source.videoHeight ?? source.height;
      if (!width || !height) return [];
      // Large pictures are scaled down: a card's QR code needs no more than about 1,600 pixels across.
      const scale = Math.min(1, 1600 / Math.max(width, height));
      canvas.width = Math.round(width * scale);
      canvas.height = Math.round(height * scale);
      context.drawImage(source, 0, 0, canvas.width, canvas.height);
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      const pixels = canvas.width * canvas.height;
      const grey = zbar._malloc(pixels);
      try {
        const heap = zbar.HEAPU8;
        for (let i = 0, o = grey; i < pixels; i++, o++) {
          heap[o] = (data[i * 4] * 77 + data[i * 4 + 1] * 150 + data[i * 4 + 2] * 29) >> 8;
        }
        const found = zbar._peez_scan(grey, canvas.width, canvas.height);
        const texts = [];
        for (let i = 0; i < found; i++) texts.push(zbar.UTF8ToString(zbar._peez_result(i)));
        return texts;
      } finally {
        zbar._free(grey);
      }
    },
  };
}

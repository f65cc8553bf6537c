// The playground's text drawing, batched: the timeline's labels reach the
// canvas in one call a frame instead of one call a label (each call from
// WebAssembly into JavaScript costs more than the label's drawing).
//
// sluiceTexts(ctx, s) runs the lines of s, separated by "\n", on the 2D
// context ctx: "f<font>", "c<fill style>" and "a<text align>" set the
// context's state; "t<x> <y> <text>" draws text at x, y.
globalThis.sluiceTexts = (ctx, s) => {
  let i = 0;
  while (i < s.length) {
    let end = s.indexOf("\n", i);
    if (end < 0) end = s.length;
    const k = s[i];
    if (k === "t") {
      const a = s.indexOf(" ", i + 1), b = s.indexOf(" ", a + 1);
      ctx.fillText(s.slice(b + 1, end), +s.slice(i + 1, a), +s.slice(a + 1, b));
    } else if (k === "f") {
      ctx.font = s.slice(i + 1, end);
    } else if (k === "c") {
      ctx.fillStyle = s.slice(i + 1, end);
    } else if (k === "a") {
      ctx.textAlign = s.slice(i + 1, end);
    }
    i = end + 1;
  }
};

// sluiceRects(bytes, n) returns a Path2D of n rectangles whose x, y,
// width and height are the float32s at the start of the Uint8Array bytes,
// in turn, little-endian as every browser's typed arrays are: the
// timeline's bars reach the canvas as numbers, where SVG path text took
// longer to write in Go and to parse here than the bars took to fill.
globalThis.sluiceRects = (bytes, n) => {
  const f = new Float32Array(bytes.buffer, bytes.byteOffset, n * 4);
  const p = new Path2D();
  for (let i = 0; i < n * 4; i += 4) p.rect(f[i], f[i + 1], f[i + 2], f[i + 3]);
  return p;
};

// sluiceWidths(ctx, font, s) returns the widths of the characters of s in
// font, joined by commas, and leaves ctx's font set to font: the page
// measures a font's characters once, in one call.
globalThis.sluiceWidths = (ctx, font, s) => {
  ctx.font = font;
  return Array.from(s, (c) => ctx.measureText(c).width).join(",");
};

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

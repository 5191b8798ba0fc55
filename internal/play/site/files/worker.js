// The playground's engine worker: runs engine.wasm (schedlab compiled with
// GOOS=js GOARCH=wasm) with Go's own wasm_exec.js, and answers the page's
// messages one at a time. A call runs to its end before the next message
// is read; the page stops a run by terminating this worker.
"use strict";
importScripts("wasm_exec.js");

var api = null;
var queue = [];

self.schedlabReady = function () {
  api = self.schedlab;
  self.postMessage({ type: "ready" });
  var q = queue;
  queue = [];
  q.forEach(handle);
};

function boot(module) {
  var go = new Go();
  WebAssembly.instantiate(module, go.importObject).then(function (inst) {
    go.run(inst).then(function () {
      self.postMessage({ type: "fatal", error: "the engine exited" });
    });
  }, function (err) {
    self.postMessage({ type: "fatal", error: "cannot start the engine: " + err });
  });
}

self.onmessage = function (e) {
  var m = e.data;
  if (m.type === "boot") {
    boot(m.module);
  } else if (!api) {
    queue.push(m);
  } else {
    handle(m);
  }
};

function handle(m) {
  var out;
  try {
    switch (m.type) {
    case "info":
      out = api.info();
      break;
    case "run":
      out = api.run(JSON.stringify(m.req), function (kind, text) {
        self.postMessage({ type: "stream", id: m.id, kind: kind, text: text });
      });
      break;
    case "stepNew":
      out = api.stepNew(JSON.stringify(m.req));
      break;
    case "goto":
      out = api.goto(m.k);
      break;
    case "explore":
      out = api.explore(JSON.stringify(m.req), function (done) {
        self.postMessage({ type: "progress", id: m.id, done: done });
      });
      break;
    default:
      throw new Error("unknown message " + m.type);
    }
    self.postMessage({ type: "result", id: m.id, result: JSON.parse(out) });
  } catch (err) {
    self.postMessage({ type: "result", id: m.id, result: { error: String(err) } });
  }
}

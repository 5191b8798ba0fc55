// The schedlab playground's page. The engine (engine.wasm) runs in a Web
// Worker (worker.js); this file is the editor, the M:P:G picture, the
// views, explore, compare and share links. docs/playground.md describes
// the link format, which internal/play/link.go writes and reads too.
"use strict";
(function () {
  var LINK_FORMAT = 1;
  var $ = function (id) { return document.getElementById(id); };

  var S = {
    info: null,        // the engine's info: version, examples, note
    module: null,      // the compiled engine, for every new worker
    worker: null,
    ready: false,
    nextId: 1,
    calls: {},         // id -> {resolve, onStream, onProgress}
    name: "hello.star",
    run: null,         // the last run's views
    runKey: "",        // the script and flags of the last run
    stepKey: "",       // the script and flags of the stepper in the worker
    picture: null,
    busy: false,
    linkStep: 0,       // a step to open at, from a link
    timer: null,       // the wall-clock limit of a call
  };

  // ---- the worker --------------------------------------------------------

  function startWorker() {
    S.ready = false;
    S.stepKey = "";
    var w = new Worker("worker.js");
    S.worker = w;
    w.onmessage = function (e) {
      var m = e.data;
      if (w !== S.worker) return;
      switch (m.type) {
      case "ready":
        S.ready = true;
        break;
      case "fatal":
        setStatus("engine failed: " + m.error);
        failCalls(m.error);
        break;
      case "stream":
        var c = S.calls[m.id];
        if (c && c.onStream) c.onStream(m.kind, m.text);
        break;
      case "progress":
        var p = S.calls[m.id];
        if (p && p.onProgress) p.onProgress(m.done);
        break;
      case "result":
        var r = S.calls[m.id];
        delete S.calls[m.id];
        if (r) r.resolve(m.result);
        break;
      }
    };
    w.onerror = function (e) { setStatus("engine worker error: " + e.message); };
    w.postMessage({ type: "boot", module: S.module });
  }

  function failCalls(msg) {
    var calls = S.calls;
    S.calls = {};
    Object.keys(calls).forEach(function (id) { calls[id].resolve({ error: msg, stopped: true }); });
  }

  // call sends a message to the engine and resolves with its result.
  function call(msg, onStream, onProgress) {
    return new Promise(function (resolve) {
      msg.id = S.nextId++;
      S.calls[msg.id] = { resolve: resolve, onStream: onStream, onProgress: onProgress };
      S.worker.postMessage(msg);
    });
  }

  // stop ends whatever the engine does: the worker is terminated and a
  // new one started from the compiled module.
  function stop(why) {
    if (S.timer) { clearTimeout(S.timer); S.timer = null; }
    S.worker.terminate();
    failCalls(why);
    startWorker();
  }

  // ---- flags ---------------------------------------------------------------

  function flagArgs() {
    var args = [];
    var v;
    if ((v = $("f-procs").value.trim())) args.push("--procs=" + v);
    if ((v = $("f-seed").value.trim())) args.push("--seed=" + v);
    if ((v = $("f-preempt").value)) args.push("--preempt=" + v);
    if ((v = $("f-perturb").value)) args.push("--perturb=" + v);
    if ((v = $("f-maxsteps").value.trim())) args.push("--max-steps=" + v);
    $("f-more").value.trim().split(/\s+/).forEach(function (a) { if (a) args.push(a); });
    return args;
  }

  // setFlags shows args in the flag fields: the ones with a field of their
  // own there, the rest in "more".
  function setFlags(args) {
    var fields = { procs: "f-procs", seed: "f-seed", preempt: "f-preempt", perturb: "f-perturb", "max-steps": "f-maxsteps" };
    Object.keys(fields).forEach(function (k) { $(fields[k]).value = ""; });
    var more = [];
    for (var i = 0; i < args.length; i++) {
      var m = /^--?([a-z-]+)(?:=(.*))?$/.exec(args[i]);
      var name = m && m[1], val = m && m[2];
      if (m && fields[name]) {
        if (val === undefined && i + 1 < args.length) val = args[++i];
        $(fields[name]).value = val;
      } else {
        more.push(args[i]);
      }
    }
    $("f-more").value = more.join(" ");
  }

  // wallLimit is the run's --timeout in ms, as the command takes it (1m
  // by default): the page stops the worker a little after it, should the
  // engine not end the run itself.
  function wallLimit(args) {
    var t = 60000;
    args.forEach(function (a) {
      var m = /^--?timeout=(.+)$/.exec(a);
      if (m) {
        var ms = parseGoDuration(m[1]);
        if (ms !== null) t = ms;
      }
    });
    return t;
  }

  function parseGoDuration(s) {
    var units = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };
    var re = /([0-9.]+)(ns|us|µs|ms|s|m|h)/g, total = 0, n = 0, m;
    while ((m = re.exec(s))) { total += parseFloat(m[1]) * units[m[2]]; n += m[0].length; }
    return n === s.length && n > 0 ? total : (s === "0" ? 0 : null);
  }

  // ---- the editor ------------------------------------------------------------

  var src = $("src");

  function lines() { return src.value.split("\n").length; }

  function drawGutter() {
    var n = lines(), marks = S.marks || {};
    var out = [];
    for (var i = 1; i <= n; i++) {
      out.push('<span data-line="' + i + '"' + (marks[i] ? ' class="' + marks[i] + '"' : "") + ">" + i + "</span>");
    }
    $("gutter").innerHTML = out.join("");
    syncScroll();
  }

  function syncScroll() {
    $("gutter").scrollTop = src.scrollTop;
    $("marks").style.top = (-src.scrollTop) + "px";
  }

  // markLines marks the lines an error names: the first as the error's
  // line, the others (the rest of a backtrace) lighter.
  function markLines(text) {
    S.marks = {};
    var first = 0;
    locations(text).forEach(function (loc) {
      if (!first) first = loc.line;
      if (!S.marks[loc.line]) S.marks[loc.line] = "ref";
    });
    if (first) S.marks[first] = "err";
    var html = "";
    Object.keys(S.marks).forEach(function (l) {
      if (S.marks[l] === "err") html += '<div class="errline" data-line="' + l + '" style="top:' + (4 + (l - 1) * 16) + 'px"></div>';
    });
    $("marks").innerHTML = html;
    drawGutter();
  }

  // locations returns the file:line:col of the script named in text.
  function locations(text) {
    var re = /([A-Za-z0-9_.\/-]+\.star):(\d+)(?::(\d+))?/g, m, out = [];
    while ((m = re.exec(text))) {
      if (baseName(m[1]) === baseName(S.name)) out.push({ line: +m[2], col: m[3] ? +m[3] : 1 });
    }
    return out;
  }

  function baseName(p) { return p.replace(/^.*\//, ""); }

  // goToLine puts the cursor at line:col and shows it.
  function goToLine(line, col) {
    var ls = src.value.split("\n"), pos = 0;
    for (var i = 0; i < line - 1 && i < ls.length; i++) pos += ls[i].length + 1;
    pos += Math.max(0, Math.min((col || 1) - 1, (ls[line - 1] || "").length));
    src.focus();
    src.setSelectionRange(pos, pos);
    src.scrollTop = Math.max(0, (line - 5) * 16);
    syncScroll();
    var d = document.createElement("div");
    d.className = "flash";
    d.style.top = (4 + (line - 1) * 16) + "px";
    $("marks").appendChild(d);
    setTimeout(function () { d.remove(); }, 800);
  }

  src.addEventListener("input", function () { S.marks = {}; $("marks").innerHTML = ""; drawGutter(); });
  src.addEventListener("scroll", syncScroll);
  src.addEventListener("keydown", function (e) {
    if (e.key === "Tab") {
      e.preventDefault();
      var s = src.selectionStart, t = src.selectionEnd, v = src.value;
      if (s === t && !e.shiftKey) {
        src.setRangeText("    ", s, t, "end");
      } else {
        // indent or dedent every line of the selection
        var a = v.lastIndexOf("\n", s - 1) + 1, block = v.slice(a, t);
        var out = block.split("\n").map(function (l) { return e.shiftKey ? l.replace(/^ {1,4}/, "") : "    " + l; }).join("\n");
        src.setRangeText(out, a, t, "select");
      }
      src.dispatchEvent(new Event("input"));
    } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      runScript();
    }
  });

  // ---- text with links -------------------------------------------------------

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  // linked returns text as HTML in which every file:line:col of the
  // script is a link to that place in the editor.
  function linked(text) {
    var re = /([A-Za-z0-9_.\/-]+\.star):(\d+)(?::(\d+))?/g, out = "", last = 0, m;
    while ((m = re.exec(text))) {
      if (baseName(m[1]) !== baseName(S.name)) continue;
      out += esc(text.slice(last, m.index));
      out += '<a class="loc" data-line="' + m[2] + '" data-col="' + (m[3] || 1) + '">' + esc(m[0]) + "</a>";
      last = m.index + m[0].length;
    }
    return out + esc(text.slice(last));
  }

  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a.loc");
    if (a) goToLine(+a.dataset.line, +a.dataset.col);
  });

  // ---- status ------------------------------------------------------------------

  function setStatus(s) { $("status").textContent = s; }

  function setBusy(b) {
    S.busy = b;
    $("run").disabled = b || !S.ready;
    $("stop").disabled = !b;
    ["back", "step", "stepN", "toEnd", "explore", "compare"].forEach(function (id) { $(id).disabled = b; });
    $("share").disabled = b;
  }

  function showTab(name) {
    document.querySelectorAll("#tabs button").forEach(function (b) { b.classList.toggle("on", b.dataset.tab === name); });
    document.querySelectorAll(".tab").forEach(function (t) { t.classList.toggle("on", t.id === "tab-" + name); });
    if (name === "compare" && S.remark) S.remark(); // the frames have a width only when shown
  }
  document.querySelectorAll("#tabs button").forEach(function (b) {
    b.addEventListener("click", function () { showTab(b.dataset.tab); });
  });

  // ---- running -----------------------------------------------------------------

  function request(args) {
    return { filename: S.name, src: src.value, args: args || flagArgs(), timeline: true, goTrace: true };
  }

  // withLimit runs the engine call f under the wall-clock limit ms. The
  // engine ends a run at --timeout itself, with the command's report; if
  // it has not answered 5s after the limit, the worker is stopped.
  function withLimit(ms, f) {
    if (ms > 0) {
      S.timer = setTimeout(function () {
        S.timer = null;
        stop("timeout");
      }, ms + 5000);
    }
    return f().then(function (r) {
      if (S.timer) { clearTimeout(S.timer); S.timer = null; }
      return r;
    });
  }

  function runScript() {
    if (S.busy || !S.ready) return Promise.resolve();
    var req = request();
    var started = performance.now();
    setBusy(true);
    setStatus("running…");
    $("stdout").textContent = "";
    $("stderr").textContent = "";
    $("exit").textContent = "";
    var streamed = { stdout: "", stderr: "" };
    var limit = wallLimit(req.args);
    return withLimit(limit, function () {
      return call({ type: "run", req: req }, function (kind, text) {
        streamed[kind] += text;
        $(kind).textContent = streamed[kind];
      });
    }).then(function (res) {
      setBusy(false);
      if (res.stopped) {
        var why = res.error === "timeout"
          ? "schedlab: the page stopped the run at the wall-clock limit (--timeout=" + (limit / 1000) + "s)"
          : "schedlab: stopped";
        S.run = { stdout: streamed.stdout, stderr: streamed.stderr + why + "\n", trace: "", timeline: "", code: -1, events: 0, stopped: true };
        showRun(S.run);
        setStatus("stopped");
        return;
      }
      if (res.error) {
        setStatus("error: " + res.error);
        return;
      }
      S.run = res;
      S.runKey = JSON.stringify([req.filename, req.src, req.args]);
      showRun(res);
      setStatus("ran in " + Math.round(performance.now() - started) + " ms: " + res.events + " events");
      return stepTo(S.linkStep || 0, true).then(function () { S.linkStep = 0; });
    });
  }

  function showRun(res) {
    $("stdout").textContent = res.stdout;
    $("stderr").innerHTML = linked(res.stderr);
    $("exit").textContent = res.stopped ? "stopped" : "exit status " + res.code;
    markLines(res.stderr);
    drawTrace();
    $("timeline").srcdoc = res.timeline || "";
    $("dlTrace").disabled = !res.trace;
    $("dlTimeline").disabled = !res.timeline;
    $("dlGoTrace").disabled = !res.goTrace;
  }

  // ---- the trace -----------------------------------------------------------------

  var EVENT_LINE = /^ *-?[0-9]+\.[0-9]{3}µs (\S+) +(\S+) +(\S+) +(\S+)(.*)$/;

  function drawTrace() {
    var text = (S.run && S.run.trace) || "";
    var g = $("tr-g").value.trim().toUpperCase(), p = $("tr-p").value.trim().toUpperCase();
    if (g && !/^G/.test(g)) g = "G" + g;
    if (p && !/^P/.test(p)) p = "P" + p;
    if (!g && !p) {
      $("trace").textContent = text;
      $("tr-count").textContent = "";
      return;
    }
    var gword = new RegExp("(^|[^A-Za-z0-9])" + g + "([^0-9]|$)");
    var kept = [], n = 0;
    text.split("\n").forEach(function (line) {
      var m = EVENT_LINE.exec(line);
      if (!m) return;
      n++;
      if (p && m[1] !== p) return;
      if (g && m[3] !== g && !gword.test(m[5])) return;
      kept.push(line);
    });
    $("trace").textContent = kept.join("\n") + (kept.length ? "\n" : "");
    $("tr-count").textContent = kept.length + " of " + n + " events";
  }
  $("tr-g").addEventListener("input", drawTrace);
  $("tr-p").addEventListener("input", drawTrace);

  // ---- stepping and the picture ------------------------------------------------------

  // stepTo shows the picture after event k (Infinity: the end of the run),
  // making a stepper for the current script and flags first if the worker
  // has none. push records the step in the browser's history.
  function stepTo(k, push) {
    if (!S.ready) return Promise.resolve();
    var req = request();
    delete req.timeline;
    delete req.goTrace;
    var key = JSON.stringify([req.filename, req.src, req.args]);
    var limit = wallLimit(req.args);
    setBusy(true);
    var p = Promise.resolve();
    if (S.stepKey !== key) {
      p = call({ type: "stepNew", req: req }).then(function (pic) {
        if (pic.error) throw new Error(pic.error);
        S.stepKey = key;
      });
    }
    return p.then(function () {
      var target = k === Infinity ? 2147483647 : Math.max(0, k);
      return withLimit(limit, function () { return call({ type: "goto", k: target }); });
    }).then(function (pic) {
      if (pic.stopped) { setStatus("stopped"); S.stepKey = ""; return; }
      if (pic.error) { setStatus("error: " + pic.error); return; }
      S.picture = pic;
      drawPicture(pic);
      if (push) return pushHistory();
    }).then(function () {
      setBusy(false);
    }, function (err) {
      setBusy(false);
      setStatus("error: " + err.message);
    });
  }

  var STATE_NAMES = ["running", "runnable", "waiting", "syscall", "preempted", "leaked"];

  function gchip(id, gs) {
    if (!id) return '<span class="empty">-</span>';
    var g = gs[id] || { state: "dead", status: "dead", name: "" };
    return '<span class="g" data-g="' + id + '" data-state="' + esc(g.state) + '" title="G' + id + " " + esc(g.name) + " [" + esc(g.status) + "]" + '">G' + id + "</span>";
  }

  // mClass is the colour of an M's activity (runtime.MState.Activity).
  function mClass(a) {
    return /^syscall/.test(a) ? "syscall" : a === "running" || a === "spinning" || a === "idle" || a === "netpoll" ? a : "scheduling";
  }

  function drawPicture(pic) {
    var gs = {};
    pic.gs.forEach(function (g) { gs[g.id] = g; });
    var total = S.run ? S.run.events : 0;
    $("picstep").textContent = "step " + pic.step + " of " + total + (pic.done ? " (the run ended, exit status " + pic.code + ")" : "") + " · " + fmtTime(pic.time);
    $("picline").textContent = pic.step ? pic.line : "before the first event";
    $("stepinfo").textContent = "step " + pic.step + "/" + total;
    var q = pic.runq;
    var ps = q.ps.map(function (p) {
      var ring = p.ring.length ? p.ring.map(function (id) { return gchip(id, gs); }).join("") : '<span class="empty">empty</span>';
      return '<div class="p" data-p="' + p.id + '" data-status="' + esc(p.status) + '" data-m="' + p.m + '" data-schedtick="' + p.schedtick + '" data-timers="' + p.timers + '">' +
        '<div class="ptitle">P' + p.id + " · " + esc(p.status) + " · " + (p.m >= 0 ? "M" + p.m : "no M") + " · schedtick " + p.schedtick + (p.timers ? " · timers " + p.timers : "") + "</div>" +
        '<div class="slot curg"><span class="k">running</span>' + gchip(p.curg, gs) + "</div>" +
        '<div class="slot runnext"><span class="k">runnext</span>' + gchip(p.runnext, gs) + "</div>" +
        '<div class="slot"><span class="k">ring</span><span class="ring" data-len="' + p.ring.length + '">' + ring + "</span></div>" +
        "</div>";
    });
    $("pic-ps").innerHTML = ps.join("");
    $("pic-global").innerHTML = '<b>global run queue</b> <span class="ring global">' +
      (q.global.length ? q.global.map(function (id) { return gchip(id, gs); }).join("") : '<span class="empty">empty</span>') + "</span>";
    $("pic-idle").innerHTML = "<b>idle Ps</b> (the next taken last) " + '<span class="idle">' +
      (q.idlePs.length ? q.idlePs.map(function (p) { return '<span class="ip" data-p="' + p + '">P' + p + "</span>"; }).join(" ") : '<span class="empty">none</span>') + "</span>";
    $("pic-ms").innerHTML = "<b>Ms</b> " + q.ms.map(function (m) {
      var p = m.p >= 0 ? "P" + m.p : m.syscallP >= 0 ? "(P" + m.syscallP + ")" : "no P";
      return '<span class="m" data-m="' + m.id + '" data-state="' + mClass(m.activity) + '" data-activity="' + esc(m.activity) +
        '" data-p="' + m.p + '" data-syscallp="' + m.syscallP + '" data-curg="' + m.curg + '" title="' + esc(m.activity) + '">M' + m.id + " " + p + " " +
        (m.curg ? gchip(m.curg, gs) : '<span class="empty">g0</span>') + " " + esc(m.activity) + "</span>";
    }).join("");
    // the network poller (:netpoll), once someone waits on it or an M blocks in it
    var np = q.netpoll || { waiters: 0, m: -1, waiting: [] };
    $("pic-netpoll").innerHTML = !np.waiting.length && np.m < 0 ? "" :
      "<b>netpoll</b> " + (np.m >= 0 ? '<span class="pollm" data-m="' + np.m + '">M' + np.m + " blocked in netpoll</span> " : "") +
      np.waiting.map(function (w) {
        var dl = w.mode === "connect" ? "" : w.deadline < 0 ? " deadline expired" : w.deadline > 0 ? " deadline " + fmtTime(w.deadline) : "";
        return '<span class="waiter" data-g="' + w.g + '" data-fd="' + w.fd + '" data-kind="' + esc(w.kind) + '" data-mode="' + esc(w.mode) + '" data-deadline="' + w.deadline + '">' +
          gchip(w.g, gs) + " fd " + w.fd + " " + esc(w.kind) + " " + esc(w.mode) + esc(dl) + "</span>";
      }).join(" ");
    $("pic-gs").innerHTML = "<b>goroutines</b><table><tbody>" + pic.gs.map(function (g) {
      return '<tr class="grow" data-g="' + g.id + '" data-name="' + esc(g.name) + '" data-status="' + esc(g.status) + '" data-state="' + esc(g.state) + '" data-where="' + esc(g.where) + '">' +
        "<td>" + gchip(g.id, gs) + "</td><td>" + esc(g.name) + "</td><td>" + esc(g.status) + "</td><td>" + esc(g.where) + "</td></tr>";
    }).join("") + "</tbody></table>";
    $("legend").innerHTML = "states: " + STATE_NAMES.map(function (s) { return '<span class="g" data-state="' + s + '">' + s + "</span>"; }).join(" ");
    $("pstext").textContent = pic.ps;
    $("runqtext").textContent = pic.runqText;
    $("mstext").textContent = pic.msText;
    $("netpolltext").textContent = pic.netpollText || "";
    $("picoutput").innerHTML = linked(pic.output);
  }

  function fmtTime(ns) {
    var us = Math.floor(ns / 1000), frac = String(ns % 1000);
    while (frac.length < 3) frac = "0" + frac;
    return us + "." + frac + "µs";
  }

  $("step").addEventListener("click", function () { stepTo((S.picture ? S.picture.step : 0) + 1, true); });
  $("back").addEventListener("click", function () { stepTo(Math.max(0, (S.picture ? S.picture.step : 0) - 1), true); });
  $("stepN").addEventListener("click", function () { stepTo((S.picture ? S.picture.step : 0) + Math.max(1, +$("stepn").value || 1), true); });
  $("toEnd").addEventListener("click", function () { stepTo(Infinity, true); });
  $("run").addEventListener("click", runScript);
  $("stop").addEventListener("click", function () { stop("stopped"); });

  // highlight a goroutine everywhere on hover
  $("picture").addEventListener("mouseover", function (e) {
    var g = e.target.closest && e.target.closest(".g[data-g]");
    document.querySelectorAll(".g.hl").forEach(function (x) { x.classList.remove("hl"); });
    if (g) document.querySelectorAll('.g[data-g="' + g.dataset.g + '"]').forEach(function (x) { x.classList.add("hl"); });
  });

  // ---- share links -------------------------------------------------------------------

  function b64url(bytes) {
    var s = "";
    for (var i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function unb64url(s) {
    if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new LinkError("corrupt");
    var bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  function LinkError(kind, msg) { this.kind = kind; this.message = msg || kind; }

  function pipe(bytes, stream, limit) {
    var reader = new Blob([bytes]).stream().pipeThrough(stream).getReader(), chunks = [], n = 0;
    function next() {
      return reader.read().then(function (r) {
        if (r.done) {
          var out = new Uint8Array(n), o = 0;
          chunks.forEach(function (c) { out.set(c, o); o += c.length; });
          return out;
        }
        n += r.value.length;
        if (limit && n > limit) { reader.cancel(); throw new LinkError("long"); }
        chunks.push(r.value);
        return next();
      });
    }
    return next();
  }

  function encodeLink(l) {
    var json = new TextEncoder().encode(JSON.stringify({ v: l.v, name: l.name, script: l.script, flags: l.flags, step: l.step }));
    return pipe(json, new CompressionStream("deflate-raw")).then(function (z) {
      return z.length < json.length ? LINK_FORMAT + ".z." + b64url(z) : LINK_FORMAT + ".j." + b64url(json);
    });
  }

  function maxScript() { return S.info ? S.info.maxScript : 65536; }

  // decodeLink reads a fragment; it fails with a LinkError whose kind is
  // corrupt, long or newer.
  function decodeLink(frag) {
    return Promise.resolve().then(function () {
      var parts = frag.split(".");
      if (parts.length < 3 || !/^[0-9]+$/.test(parts[0])) throw new LinkError("corrupt");
      var format = +parts[0];
      if (format > LINK_FORMAT) throw new LinkError("newer", format);
      if (format < 1) throw new LinkError("corrupt");
      var data = unb64url(parts.slice(2).join("."));
      var limit = 6 * maxScript() + 4096;
      if (parts[1] === "j") return data;
      if (parts[1] !== "z") throw new LinkError("corrupt");
      return pipe(data, new DecompressionStream("deflate-raw"), limit).catch(function (e) {
        throw e instanceof LinkError ? e : new LinkError("corrupt");
      });
    }).then(function (bytes) {
      if (bytes.length > 6 * maxScript() + 4096) throw new LinkError("long");
      var l;
      try {
        l = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
      } catch (e) {
        throw new LinkError("corrupt");
      }
      if (l && typeof l.script === "string" && new TextEncoder().encode(l.script).length > maxScript()) throw new LinkError("long");
      if (!l || typeof l.script !== "string" || typeof l.name !== "string" || !Array.isArray(l.flags) ||
          !l.flags.every(function (f) { return typeof f === "string"; }) || (l.step !== undefined && !(l.step >= 0))) {
        throw new LinkError("corrupt");
      }
      return l;
    });
  }

  function linkMessage(e) {
    switch (e.kind) {
    case "newer":
      return "This link was made by a newer schedlab playground (link format " + e.message + "; this page reads format " + LINK_FORMAT + "). Open it with a newer schedlab play.";
    case "long":
      return "This link's script is longer than the " + (maxScript() >> 10) + " KiB a link may carry; it was not opened.";
    }
    return "This link is damaged: its data cannot be read (cut short when it was copied?). The page opened the default example instead.";
  }

  function currentLink() {
    return encodeLink({ v: S.info.version, name: S.name, script: src.value, flags: flagArgs(), step: S.picture ? S.picture.step : 0 });
  }

  function pushHistory() {
    if (!S.info) return Promise.resolve();
    return currentLink().then(function (frag) {
      if (location.hash !== "#" + frag) history.pushState({ step: S.picture ? S.picture.step : 0 }, "", "#" + frag);
    });
  }

  $("share").addEventListener("click", function () {
    currentLink().then(function (frag) {
      var url = location.href.replace(/#.*$/, "") + "#" + frag;
      $("sharebox").hidden = false;
      $("sharelink").value = url;
      $("shareinfo").textContent = url.length + " characters; opens at step " + (S.picture ? S.picture.step : 0);
      $("sharelink").select();
      if (navigator.clipboard) navigator.clipboard.writeText(url).catch(function () {});
    });
  });

  // openLink opens the link in the fragment, if any; it resolves true if
  // it did.
  function openLink(push) {
    var frag = location.hash.replace(/^#/, "");
    $("linkmsg").hidden = true;
    if (!frag) return Promise.resolve(false);
    return decodeLink(frag).then(function (l) {
      var same = S.runKey === JSON.stringify([l.name, l.script, l.flags]);
      if (l.v !== S.info.version) {
        $("versionwarn").hidden = false;
        $("versionwarn").textContent = "This link was made by schedlab " + l.v + "; this page runs " + S.info.version +
          ". The engine differs: the output, the trace and the steps may not be what the sender saw.";
      } else {
        $("versionwarn").hidden = true;
      }
      if (same && S.stepKey) return stepTo(l.step || 0, push).then(function () { return true; });
      setScript(l.name, l.script);
      setFlags(l.flags);
      S.linkStep = l.step || 0;
      return runScript().then(function () { return true; });
    }, function (e) {
      $("linkmsg").hidden = false;
      $("linkmsg").textContent = e instanceof LinkError ? linkMessage(e) : "This link cannot be opened: " + e;
      return false;
    });
  }

  window.addEventListener("popstate", function () { openLink(false); });

  // ---- downloads ---------------------------------------------------------------------

  function download(name, text, type) {
    var a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type: type }));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }
  $("dlTrace").addEventListener("click", function () { download(S.name.replace(/\.star$/, "") + ".trace.txt", S.run.trace, "text/plain"); });
  $("dlTimeline").addEventListener("click", function () { download(S.name.replace(/\.star$/, "") + ".timeline.html", S.run.timeline, "text/html"); });
  $("dlGoTrace").addEventListener("click", function () {
    var bin = atob(S.run.goTrace), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    download(S.name.replace(/\.star$/, "") + ".trace", bytes, "application/octet-stream");
  });

  // ---- explore -------------------------------------------------------------------------

  $("explore").addEventListener("click", function () {
    if (S.busy) return;
    var procs = $("x-procs").value.trim();
    var req = {
      filename: S.name, src: src.value, args: flagArgs(), runs: +$("x-runs").value || 1, seedStart: +$("x-seed").value || 0,
      procs: procs ? procs.split(",").map(function (x) { return +x; }) : [], perturb: $("x-perturb").value,
    };
    var started = performance.now();
    setBusy(true);
    $("x-progress").max = req.runs;
    $("x-progress").value = 0;
    $("x-status").textContent = "exploring…";
    $("x-classes").tBodies[0].innerHTML = "";
    call({ type: "explore", req: req }, null, function (done) {
      $("x-progress").value = done;
      $("x-status").textContent = done + " of " + req.runs + " runs";
    }).then(function (res) {
      setBusy(false);
      if (res.error) { $("x-status").textContent = res.stopped ? "stopped" : res.error; return; }
      var secs = (performance.now() - started) / 1000;
      S.explore = res;
      $("x-progress").value = res.done;
      $("x-status").textContent = res.done + " runs in " + secs.toFixed(2) + " s (" + Math.round(res.done / secs) + " runs/s), " + res.classes.length + " classes, perturb=" + res.perturb;
      $("x-classes").tBodies[0].innerHTML = res.classes.map(function (c, i) {
        return '<tr data-i="' + i + '" class="' + (c.failure ? "fail" : "") + '"><td>' + esc(c.outcome) + "</td><td>" + c.count + "</td><td>" + c.seed + "</td><td>" + c.procs +
          "</td><td>" + esc(c.message) + '</td><td><button data-ab="a">A</button><button data-ab="b">B</button></td></tr>';
      }).join("");
    });
  });

  $("x-classes").addEventListener("click", function (e) {
    var tr = e.target.closest("tr[data-i]");
    if (!tr || S.busy) return;
    var c = S.explore.classes[+tr.dataset.i];
    var b = e.target.closest("button[data-ab]");
    if (b) {
      $("c-" + b.dataset.ab).value = c.replayFlags.join(" ");
      return;
    }
    setFlags(c.replayFlags);
    runScript().then(function () { showTab("output"); });
  });

  // ---- compare -----------------------------------------------------------------------------

  function lcsDiff(a, b) {
    // a line diff by longest common subsequence, for outputs of moderate size
    var n = a.length, m = b.length;
    if (n * m > 4e6) return null;
    var dp = [];
    for (var i = 0; i <= n; i++) { dp.push(new Int32Array(m + 1)); }
    for (i = n - 1; i >= 0; i--) for (var j = m - 1; j >= 0; j--) dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    var out = [];
    i = 0; j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[i] === b[j]) { out.push("  " + a[i]); i++; j++; }
      else if (j < m && (i === n || dp[i][j + 1] >= dp[i + 1][j])) { out.push("+ " + b[j]); j++; }
      else { out.push("- " + a[i]); i++; }
    }
    return out;
  }

  // lineTime returns the virtual time of a text-trace line, in ns.
  function lineTime(line) {
    var m = /^ *(-?[0-9]+)\.([0-9]{3})µs/.exec(line);
    return m ? +m[1] * 1000 + (m[1][0] === "-" ? -1 : 1) * +m[2] : null;
  }

  // loadTimelines shows the two runs' timelines on one time axis: the
  // union of their time ranges, and whatever one is zoomed or panned to,
  // the other follows (the timeline page's setView and __schedlabOnView).
  // A line marks, in each, the time of the first event where the runs part.
  function loadTimelines(a, b, tA, tB) {
    var fa = $("c-tla"), fb = $("c-tlb"), loaded = 0;
    var onload = function () {
      if (++loaded < 2) return;
      var A = fa.contentWindow.__schedlab, B = fb.contentWindow.__schedlab;
      if (!A || !B) return;
      var va = A.view(), vb = B.view();
      var start = Math.min(va.start, vb.start), end = Math.max(va.end, vb.end, start + 1);
      var scale = (end - start) / Math.max(1, Math.min(va.plotW, vb.plotW));
      var following = false;
      var follow = function (other) {
        return function (t0, sc) {
          if (!following) { following = true; other.setView(t0, sc); following = false; }
          mark(fa, A, tA, "c-marka");
          mark(fb, B, tB, "c-markb");
        };
      };
      S.remark = function () { mark(fa, A, tA, "c-marka"); mark(fb, B, tB, "c-markb"); };
      fa.contentWindow.__schedlabOnView = follow(B);
      fb.contentWindow.__schedlabOnView = follow(A);
      A.setView(start, scale);
      B.setView(start, scale);
      S.remark();
      S.compareView = { start: start, scale: scale };
    };
    fa.onload = onload;
    fb.onload = onload;
    fa.srcdoc = a;
    fb.srcdoc = b;
  }

  // mark places the line of time t over the plot of timeline frame f.
  function mark(f, tl, t, id) {
    var m = $(id);
    if (t === null || !tl) { m.hidden = true; return; }
    var v = tl.view(), x = (f.clientWidth - v.plotW) + (t - v.t0) / v.scale;
    m.hidden = x < f.clientWidth - v.plotW || x > f.clientWidth;
    m.style.left = x + "px";
    m.title = "the first event where the runs part, at " + fmtTime(t);
  }

  $("compare").addEventListener("click", function () {
    if (S.busy) return;
    var words = function (s) { return s.trim().split(/\s+/).filter(Boolean); };
    var base = flagArgs();
    var a = base.concat(words($("c-a").value)), b = base.concat(words($("c-b").value));
    setBusy(true);
    var ra;
    call({ type: "run", req: request(a) }).then(function (r) {
      ra = r;
      return call({ type: "run", req: request(b) });
    }).then(function (rb) {
      setBusy(false);
      if (ra.error || rb.error) { $("c-first").textContent = ra.error || rb.error; return; }
      $("c-outa").textContent = ra.stdout + ra.stderr;
      $("c-outb").textContent = rb.stdout + rb.stderr;
      var d = lcsDiff((ra.stdout + ra.stderr).split("\n"), (rb.stdout + rb.stderr).split("\n"));
      $("c-diff").innerHTML = d ? d.map(function (l) {
        return l[0] === "+" ? '<span class="diffadd">' + esc(l) + "</span>" : l[0] === "-" ? '<span class="diffdel">' + esc(l) + "</span>" : esc(l);
      }).join("\n") : "(too long to diff here)";
      // the first scheduling decision where the runs part: the first
      // event line that differs (the header names the flags, so skip it)
      var ea = ra.trace.split("\n").filter(function (l) { return EVENT_LINE.test(l); });
      var eb = rb.trace.split("\n").filter(function (l) { return EVENT_LINE.test(l); });
      var k = 0;
      while (k < ea.length && k < eb.length && ea[k] === eb[k]) k++;
      var show = function (ev, id) {
        var lo = Math.max(0, k - 3);
        $(id).innerHTML = ev.slice(lo, k + 4).map(function (l, i) { return lo + i === k ? '<span class="first">' + esc(l) + "</span>" : esc(l); }).join("\n");
      };
      show(ea, "c-tra");
      show(eb, "c-trb");
      $("c-first").textContent = k === ea.length && k === eb.length ? "the two runs make the same scheduling decisions" :
        "the runs part at event " + (k + 1) + " (A: " + ea.length + " events, B: " + eb.length + ")";
      $("c-first").dataset.event = k + 1;
      var tA = k < ea.length ? lineTime(ea[k]) : null, tB = k < eb.length ? lineTime(eb[k]) : null;
      loadTimelines(ra.timeline, rb.timeline, tA, tB);
    });
  });

  // ---- start -------------------------------------------------------------------------------

  function showNote(n) {
    if (!n) return;
    $("notemodel").textContent = n.model.replace(/`/g, "").split(". ").slice(0, 3).join(". ") + ".";
    $("notediffs").innerHTML = n.diffs.map(function (d) { return '<span class="diff">' + esc((d.title || d.text).replace(/[`*]/g, "").replace(/[.:]$/, "")) + "</span>"; }).join(" ");
    $("notefull").innerHTML = "<p>" + esc(n.model.replace(/`/g, "")) + "</p><ul>" + n.diffs.map(function (d) {
      return "<li><b>" + esc(d.title.replace(/`/g, "")) + "</b> " + esc(d.text.replace(/[`*]/g, "")) + "</li>";
    }).join("") + "</ul><p>From " + esc(n.doc) + ".</p>";
  }

  // setScript puts a script in the editor; the examples menu shows its
  // name if it is an example's.
  function setScript(name, text) {
    S.name = name;
    src.value = text;
    $("filename").textContent = name;
    var ex = S.info && S.info.examples.filter(function (e) { return e.name === name && e.src === text; })[0];
    $("examples").value = ex ? name : "";
    S.marks = {};
    $("marks").innerHTML = "";
    drawGutter();
  }

  function loadExample(name) {
    var ex = S.info.examples.filter(function (e) { return e.name === name; })[0];
    if (ex) setScript(ex.name, ex.src);
  }

  $("examples").addEventListener("change", function () {
    loadExample($("examples").value);
    setFlags([]);
    runScript();
  });

  function boot() {
    var t0 = performance.now();
    fetch("engine.wasm").then(function (r) {
      if (!r.ok) throw new Error("engine.wasm: " + r.status + " " + r.statusText);
      return r.arrayBuffer();
    }).then(function (buf) {
      return WebAssembly.compile(buf);
    }).then(function (mod) {
      S.module = mod;
      startWorker();
      return call({ type: "info" });
    }).then(function (info) {
      S.info = info;
      $("version").textContent = info.version;
      showNote(info.note);
      $("examples").innerHTML = info.examples.map(function (e) { return "<option>" + esc(e.name) + "</option>"; }).join("");
      loadExample("hello.star");
      setBusy(false);
      S.loadMs = performance.now() - t0;
      S.readyAt = performance.now(); // since the page began to load
      setStatus("engine ready in " + Math.round(S.loadMs) + " ms");
      return openLink(false).then(function (opened) {
        if (!opened) return runScript();
      });
    }).catch(function (err) {
      setStatus("cannot start the engine: " + err.message);
      $("linkmsg").hidden = false;
      $("linkmsg").textContent = "The engine could not be loaded (" + err.message + "). The playground needs a browser with WebAssembly and Web Workers, served over http(s).";
    });
  }

  // For the tests and tools: what the page holds and shows.
  window.__play = {
    state: S,
    ready: function () { return !!(S.ready && S.info && !S.busy); },
    run: runScript,
    stepTo: function (k) { return stepTo(k, true); },
    stop: function () { stop("stopped"); },
    load: function (name, script, args) { setScript(name, script); setFlags(args || []); },
    link: currentLink,
    engine: function (msg) { return call(msg); },
    decode: decodeLink,
  };

  drawGutter();
  boot();
})();

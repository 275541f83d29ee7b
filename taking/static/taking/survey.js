/*
 * Survey taking without page reloads. Without JavaScript the same forms post
 * normally; this script only improves on them:
 *  - saves a page by Ajax and swaps in the next page's fragment;
 *  - shows field errors from the server next to their fields;
 *  - retries a save that failed on the network, timed out, or met a 502, 503
 *    or 504, with the same save_id (the server applies a save_id once), with
 *    backoff and a cap, telling the person it is retrying; then says what to
 *    do. Any other answer is shown, never retried: a 4xx will not go away;
 *  - warns before an idle session ends (school computers are shared), with a
 *    "Keep me logged in" button, and logs out when nobody answers;
 *  - shows and hides the questions whose show_if reads an answer on the same
 *    page as the person answers (SurveyRules below evaluates the rule tree of
 *    surveys/rules.py as it does: no eval). Without JavaScript those questions
 *    are all shown, each saying when to answer it, and the server ignores the
 *    answers to those whose rule does not hold;
 *  - on a page whose answers decide which later pages apply, keeps "Page X of
 *    Y" and the forward button (Next or Finish) in step with them. Without
 *    JavaScript the button says what the saved answers make it, and the
 *    server decides where a forward press goes once the page is saved.
 */

// The rule language of surveys/rules.py, evaluated as it is there (ODK's
// blank semantics); surveys/tests/rule_cases.json holds the cases both agree on.
var SurveyRules = (function () {
  "use strict";
  var NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;
  var DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
  var READ_AS = {
    integer: "number", decimal: "number", date: "date", short_text: "text", long_text: "text", single: "choice", multiple: "choices"
  };

  function answer(code, answers, own) {
    var value = code === "." ? own : answers[code];
    return typeof value === "string" ? value.trim() : "";
  }

  function isDate(text) {
    if (!DATE.test(text)) { return false; }
    var day = new Date(text + "T00:00:00Z");
    return !isNaN(day.getTime()) && day.toISOString().slice(0, 10) === text;
  }

  // A value as compared when read as readAs; null when blank or not readable so.
  function typed(value, readAs) {
    if (typeof value === "number") { return value; }
    if (value === "") { return null; }
    if (readAs === "number") { return NUMBER.test(value) ? parseFloat(value) : null; }
    if (readAs === "date") { return isDate(value) ? value : null; }
    return value;
  }

  function holds(op, left, right) {
    switch (op) {
      case "equals": return left === right;
      case "not_equals": return left !== right;
      case "gt": return left > right;
      case "ge": return left >= right;
      case "lt": return left < right;
      default: return left <= right;
    }
  }

  function words(text) {
    return text.split(/\s+/).filter(function (word) { return word !== ""; });
  }

  // Whether rule holds for answers (code to stored text); kinds maps each code
  // the rule reads to its question's kind ("." to the constrained question's).
  function evaluate(rule, answers, kinds, own) {
    var op = rule.op;
    if (op === "and") { return rule.rules.every(function (r) { return evaluate(r, answers, kinds, own); }); }
    if (op === "or") { return rule.rules.some(function (r) { return evaluate(r, answers, kinds, own); }); }
    if (op === "not") { return !evaluate(rule.rule, answers, kinds, own); }
    var text = answer(rule.q, answers, own);
    if (op === "answered") { return text !== ""; }
    if (op === "selected") { return words(text).indexOf(String(rule.value)) !== -1; }
    if (op === "count") { return holds(rule.cmp, words(text).length, rule.value); }
    var readAs = READ_AS[kinds[rule.q]];
    var left = typed(text, readAs);
    if (op === "in") {
      return left !== null && rule.values.some(function (v) { return typed(v, readAs) === left; });
    }
    var right = rule.value !== null && typeof rule.value === "object" ?
      typed(answer(rule.value.q, answers, own), readAs) : typed(rule.value, readAs);
    if (left === null || right === null) { return op === "not_equals"; }
    return holds(op, left, right);
  }

  return { evaluate: evaluate };
}());

(function () {
  "use strict";

  var container = document.getElementById("survey-page");
  var status = document.getElementById("save-status");
  if (!container || !status || !window.fetch || !window.FormData || !("content" in document.createElement("template"))) {
    return;
  }
  var AJAX = { "X-Requested-With": "XMLHttpRequest", "Accept": "application/json" };
  var MAX_DELAY_MS = 15000;
  var MAX_ATTEMPTS = 8;          // seven retries: about a minute (retryDelay)
  var TIMEOUT_MS = 40000;        // nginx gives up on the server after 35 s
  var RETRYABLE = { 502: true, 503: true, 504: true };
  var busy = false;
  // The page's messages, in the person's language (taking/script_messages.py).
  var MESSAGES = JSON.parse(container.dataset.messages || "{}");

  function t(key, values) {
    var text = MESSAGES[key] || key;
    Object.keys(values || {}).forEach(function (name) {
      text = text.split("%(" + name + ")s").join(String(values[name]));
    });
    return text;
  }

  function say(text, problem) {
    status.textContent = text;
    status.classList.toggle("problem", !!problem);
  }

  function setBusy(form, value) {
    busy = value;
    form.querySelectorAll("button").forEach(function (button) { button.disabled = value; });
  }

  // 1, 2, 4, 8, 15, 15, 15 s: about a minute in all. The server's Retry-After is
  // the least wait, not the whole plan: an outage longer than it still backs off.
  function retryDelay(attempt, response) {
    var backoff = Math.min(1000 * Math.pow(2, attempt - 1), MAX_DELAY_MS);
    var seconds = response ? parseInt(response.headers.get("Retry-After") || "", 10) : NaN;
    if (seconds > 0) { return Math.max(Math.min(seconds * 1000, 4 * MAX_DELAY_MS), backoff); }
    return backoff;
  }

  // fetch, failing after TIMEOUT_MS like a network error.
  function send(url, options) {
    if (!window.AbortController) { return fetch(url, options); }
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, TIMEOUT_MS);
    options.signal = controller.signal;
    return fetch(url, options).then(function (response) {
      clearTimeout(timer);
      return response;
    }, function (error) {
      clearTimeout(timer);
      throw error;
    });
  }

  function isJson(response) {
    return (response.headers.get("Content-Type") || "").indexOf("application/json") === 0;
  }

  // What to tell the person about an answer that is neither JSON nor retryable.
  function statusMessage(status) {
    if (status === 413) { return t("too_large"); }
    if (status === 429) { return t("too_many"); }
    if (status === 401 || status === 403) { return t("session_ended"); }
    return t("server_error", { status: status });
  }

  function clearErrors(form) {
    form.querySelectorAll("[data-error-for]").forEach(function (el) { el.textContent = ""; });
    form.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
    form.querySelectorAll(".has-error").forEach(function (el) { el.classList.remove("has-error"); });
    container.querySelectorAll(".error-summary").forEach(function (old) { old.remove(); });
  }

  // Show title and items ({text, href, after, pageLink}: a link to href with its text, then the words after it;
  // or, without href, plain text) in the server's markup (taking/jinja2/taking/summary.html): the page fragment
  // carries an empty copy of it to fill, so that a person sees the same summary with the script as without it.
  function summary(title, items) {
    var template = container.querySelector("template.summary-template");
    var box = template.content.firstElementChild.cloneNode(true);
    var list = box.querySelector("ul");
    var model = list.removeChild(list.firstElementChild);
    box.querySelector("h2").textContent = title;
    items.forEach(function (item) {
      var entry = model.cloneNode(true);
      var link = entry.firstElementChild;
      if (item.href) {
        link.setAttribute("href", item.href);
        link.textContent = item.text;
        if (item.pageLink) { link.classList.add("page-link"); }
        if (item.after) { entry.appendChild(document.createTextNode(item.after)); }
      } else {
        entry.textContent = item.text;
      }
      list.appendChild(entry);
    });
    container.querySelectorAll(".error-summary").forEach(function (old) { old.remove(); });
    template.parentNode.insertBefore(box, template);
    box.focus();
  }

  function showFieldErrors(form, errors) {
    var items = [];
    Object.keys(errors).forEach(function (name) {
      var messages = errors[name];
      var slot = form.querySelector('[data-error-for="' + name + '"]');
      if (slot) {
        slot.textContent = messages.join(" ");
        var field = document.getElementById("field-" + name);
        if (field) { field.classList.add("has-error"); }
        form.querySelectorAll('[name="' + name + '"]').forEach(function (input) {
          input.setAttribute("aria-invalid", "true");
        });
      }
      var prompt = slot && document.getElementById("field-" + name);
      prompt = prompt && prompt.querySelector("legend, label.prompt, th[scope=row]");
      messages.forEach(function (message) {
        if (prompt) {
          items.push({ text: prompt.firstChild.textContent.trim(), href: "#field-" + name, after: ": " + message });
        } else {
          items.push({ text: message });
        }
      });
    });
    summary(t("fix_title"), items);
  }

  function showMissing(missing) {
    summary(t("missing_title"),
      missing.map(function (page) {
        return {
          text: t("page", { number: page.page }), href: page.url, pageLink: true,
          after: ": " + page.fields.map(function (f) { return f.prompt + " (" + f.message + ")"; }).join("; ")
        };
      }));
  }

  function loadPage(url, push, attempt) {
    attempt = attempt || 0;
    function retry(response) {
      attempt += 1;
      if (attempt >= MAX_ATTEMPTS) {
        busy = false;
        say(t("next_not_loaded"), true);
        summary(t("next_not_loaded_title"), [{ text: t("load_again"), href: url }]);
        return;
      }
      say(t("next_retrying", { attempt: attempt }), true);
      return new Promise(function (resolve) {
        setTimeout(function () { resolve(loadPage(url, push, attempt)); }, retryDelay(attempt, response));
      });
    }
    return send(url, { headers: AJAX, credentials: "same-origin" }).then(function (response) {
      if (response.status < 500) { heardFromServer(); }
      if (response.redirected || response.status === 401) {
        window.location.assign(response.url || url);
        return;
      }
      if (RETRYABLE[response.status]) { return retry(response); }
      if (!response.ok) {
        busy = false;
        say(statusMessage(response.status), true);
        return;
      }
      return response.text().then(function (html) {
        container.innerHTML = html;
        busy = false;
        if (push) { history.pushState({ url: url }, "", url); }
        var page = container.querySelector(".survey-page");
        document.title = page.querySelector(".progress label").textContent;
        followAnswers();
        window.scrollTo(0, 0);
        container.querySelector(".page-title").focus();
        say("");
      });
    }, function () { return retry(null); });
  }

  function handleSaved(form, body) {
    if (body.complete_url) {
      say(t("finishing"));
      window.location.assign(body.complete_url);
      return;
    }
    if (body.missing && body.missing.length) {
      setBusy(form, false);
      say(t("saved"));
      showMissing(body.missing);
      return;
    }
    if (body.next_page === body.page) {
      // Next on what the answers made the last page that applies: it comes back offering Finish.
      loadPage(body.next_url, false).then(function () { say(t("last_page")); });
      return;
    }
    say(t("loading_page", { number: body.next_page }));
    loadPage(body.next_url, true);
  }

  function handleRefused(form, response, body) {
    setBusy(form, false);
    if (response.status === 400 && body.errors) {
      say(t("fix_below"), true);
      showFieldErrors(form, body.errors);
      return;
    }
    var message = (body.errors && body.errors.__all__ && body.errors.__all__[0]) || t("could_not_save");
    say(message, true);
    if (body.complete_url) {
      window.location.assign(body.complete_url);
    } else if (body.login_url) {
      summary(message, [{ text: t("log_in_again"), href: body.login_url }]);
    }
  }

  // The answers as a form posts them without script (application/x-www-form-urlencoded), not as FormData's
  // multipart body: smaller, and Django reads it several times faster (docs/performance.md).
  function urlEncoded(data) {
    var parts = [];
    data.forEach(function (value, name) {
      parts.push(encodeURIComponent(name) + "=" + encodeURIComponent(value));
    });
    return parts.join("&");
  }

  function save(form, data, attempt) {
    setBusy(form, true);
    if (!attempt) { say(t("saving")); }
    function retry(response) {
      attempt = (attempt || 0) + 1;
      if (attempt >= MAX_ATTEMPTS) {
        setBusy(form, false);
        say(t("unreachable"), true);
        return;
      }
      var delay = retryDelay(attempt, response);
      say(t("retrying", { seconds: Math.round(delay / 1000), attempt: attempt, attempts: MAX_ATTEMPTS - 1 }), true);
      setTimeout(function () { save(form, data, attempt); }, delay);
    }
    var headers = Object.assign({
      "X-CSRFToken": data.get("csrfmiddlewaretoken"),
      "Content-Type": "application/x-www-form-urlencoded"
    }, AJAX);
    send(form.action, { method: "POST", body: urlEncoded(data), headers: headers, credentials: "same-origin" })
      .then(function (response) {
        if (response.status < 500) { heardFromServer(); }
        // A proxy error or an overloaded server: the save may or may not have
        // happened, and resending the same save_id is safe either way.
        if (RETRYABLE[response.status]) { return retry(response); }
        if (!isJson(response)) {
          setBusy(form, false);
          say(statusMessage(response.status) + " " + t("not_saved_suffix"), true);
          return;
        }
        return response.json().then(function (body) {
          if (response.ok && body.saved) {
            handleSaved(form, body);
          } else {
            handleRefused(form, response, body);
          }
        });
      }, function () { retry(null); });
  }

  // --- Questions asked only for some answers on the same page.
  // This page's answer to each question, as the server stores it.
  function pageAnswer(form, name) {
    var inputs = form.querySelectorAll('[name="' + name + '"]');
    var values = [];
    inputs.forEach(function (input) {
      if (input.type === "radio" || input.type === "checkbox") {
        if (input.checked) { values.push(input.value); }
      } else {
        values.push(input.value);
      }
    });
    return values.join(" ").trim();
  }

  function applyRules() {
    var form = container.querySelector("form.survey-form");
    if (!form || !form.dataset.ruleKinds) { return; }
    var kinds = JSON.parse(form.dataset.ruleKinds);
    var answers = JSON.parse(form.dataset.ruleAnswers || "{}");
    // What a rule reads of this page: its answer, or blank for a question
    // not asked; rules read only earlier questions, so one pass in order decides.
    form.querySelectorAll("[name^='q-']").forEach(function (input) {
      var code = input.name.slice(2);
      if (!(code in answers)) { answers[code] = pageAnswer(form, input.name); }
    });
    form.querySelectorAll("[data-show-if]").forEach(function (element) {
      var shown = SurveyRules.evaluate(JSON.parse(element.dataset.showIf), answers, kinds);
      element.hidden = !shown;
      element.querySelectorAll("input, textarea, select").forEach(function (input) {
        input.disabled = !shown;
        if (!shown) { answers[input.name.slice(2)] = ""; }
      });
    });
    form.querySelectorAll(".condition").forEach(function (note) { note.hidden = true; });
    form.querySelectorAll("fieldset.grid").forEach(function (grid) {
      var rows = grid.querySelectorAll("tr.grid-row");
      grid.hidden = rows.length > 0 && Array.prototype.every.call(rows, function (row) { return row.hidden; });
    });
  }

  // --- A page whose answers decide which later pages apply: "Page X of Y", the progress bar and the forward
  // button (Next or Finish) follow them. The same walk as SurveyFlow.effective and SurveyFlow.pages
  // (surveys/flow.py): in survey order, a question not asked reads as blank; a page applies when its rule holds.
  function applyRoute() {
    var form = container.querySelector("form.survey-form");
    if (!form || !form.dataset.route) { return; }
    var route = JSON.parse(form.dataset.route);
    var stored = JSON.parse(form.dataset.routeAnswers || "{}");
    var number = parseInt(container.querySelector(".survey-page").dataset.page, 10);
    var answers = {};
    function applies(page) {
      var rule = route.pages[String(page)];
      return !rule || SurveyRules.evaluate(rule, answers, route.kinds);
    }
    route.order.forEach(function (entry) {
      var code = entry[0], page = entry[1], rules = entry[2];
      var asked = applies(page) && rules.every(function (rule) { return SurveyRules.evaluate(rule, answers, route.kinds); });
      var input = form.querySelector('[name="q-' + code + '"]');
      var value = page === number ? (input && !input.disabled ? pageAnswer(form, "q-" + code) : "") : (stored[code] || "");
      answers[code] = asked ? value : "";
    });
    var pages = [];
    for (var page = 1; page <= route.count; page += 1) {
      if (page === number || applies(page)) { pages.push(page); }
    }
    var before = pages.indexOf(number);
    var last = pages[pages.length - 1] === number;
    var label = container.querySelector(".progress label");
    var text = t("page_of", { number: before + 1, count: pages.length });
    if (document.title.indexOf(label.textContent) === 0) {
      document.title = text + document.title.slice(label.textContent.length);
    }
    label.textContent = text;
    var bar = container.querySelector(".progress progress");
    bar.value = Math.round(100 * before / pages.length);
    bar.textContent = bar.value + "%";
    var forward = form.querySelector("button.forward");
    forward.value = last ? "finish" : "next";
    forward.textContent = t(last ? "finish" : "next");
  }

  function followAnswers() {
    applyRules();
    applyRoute();
  }

  container.addEventListener("change", followAnswers);
  container.addEventListener("input", followAnswers);

  // --- A language switch reloads the page: what the person has answered on it and not yet saved goes with it,
  // through sessionStorage (this tab only), and comes back on the same page in the new language. The stash is
  // read once and removed at the next page load, used or not; without script the switch drops unsaved answers.
  var UNSAVED_KEY = "survey-unsaved";
  var UNSAVED_MAX_AGE_MS = 10 * 60 * 1000;

  function pagePath(form) {
    return new URL(form.action, window.location.href).pathname;
  }

  function keepUnsaved(switcher) {
    var form = container.querySelector("form.survey-form");
    if (!form) { return; }
    // Back to this page (it may be an earlier one than the furthest reached), not only to where the survey resumes.
    var next = switcher.querySelector('[name="next"]');
    if (next) { next.value = pagePath(form); }
    var entries = [];
    form.querySelectorAll("[name^='q-']").forEach(function (input) {
      if ((input.type === "radio" || input.type === "checkbox") && !input.checked) { return; }
      entries.push([input.name, input.value]);
    });
    try {
      sessionStorage.setItem(UNSAVED_KEY, JSON.stringify({ page: pagePath(form), time: Date.now(), entries: entries }));
    } catch (error) { /* storage off or full: the switch goes on without them */ }
  }

  function restoreUnsaved() {
    var kept;
    try {
      kept = JSON.parse(sessionStorage.getItem(UNSAVED_KEY) || "null");
      sessionStorage.removeItem(UNSAVED_KEY);
    } catch (error) { return; }
    var form = container.querySelector("form.survey-form");
    if (!kept || !form || kept.page !== pagePath(form) || !(Date.now() - kept.time < UNSAVED_MAX_AGE_MS)) { return; }
    var values = {};
    kept.entries.forEach(function (entry) { (values[entry[0]] = values[entry[0]] || []).push(entry[1]); });
    var changed = false;
    form.querySelectorAll("[name^='q-']").forEach(function (input) {
      var own = values[input.name] || [];
      if (input.type === "radio" || input.type === "checkbox") {
        var checked = own.indexOf(input.value) !== -1;
        changed = changed || checked !== input.checked;
        input.checked = checked;
      } else {
        var value = own.length ? own.shift() : "";
        changed = changed || value !== input.value;
        input.value = value;
      }
    });
    followAnswers();
    if (changed) { say(t("kept_unsaved")); }
  }

  document.querySelectorAll("form.language-switcher").forEach(function (switcher) {
    switcher.addEventListener("submit", function () { keepUnsaved(switcher); });
  });

  // --- Idle timeout (WCAG 2.2.1: warn, and let the person stay with one press).
  var idleSeconds = parseInt(container.dataset.idleSeconds || "0", 10);
  var warningSeconds = Math.min(parseInt(container.dataset.idleWarningSeconds || "0", 10), idleSeconds);
  var idleTimers = [];
  var warning = null;

  function csrfToken() {
    var input = container.querySelector('[name="csrfmiddlewaretoken"]');
    return input ? input.value : "";
  }

  function hideWarning() {
    if (warning) {
      warning.remove();
      warning = null;
    }
  }

  function warningText(deadline) {
    var seconds = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    return seconds >= 90 ? t("idle_minutes", { minutes: Math.round(seconds / 60) }) :
      t("idle_seconds", { seconds: seconds });
  }

  function showWarning(deadline) {
    hideWarning();
    warning = document.createElement("div");
    warning.className = "idle-warning";
    warning.setAttribute("role", "alertdialog");
    warning.setAttribute("aria-labelledby", "idle-warning-title");
    warning.setAttribute("aria-describedby", "idle-warning-text");
    var heading = document.createElement("h2");
    heading.id = "idle-warning-title";
    heading.textContent = t("still_there");
    var text = document.createElement("p");
    text.id = "idle-warning-text";
    text.textContent = warningText(deadline);
    var button = document.createElement("button");
    button.type = "button";
    button.className = "button primary";
    button.textContent = t("keep_logged_in");
    button.addEventListener("click", keepAlive);
    warning.appendChild(heading);
    warning.appendChild(text);
    warning.appendChild(button);
    document.body.appendChild(warning);
    warning.returnFocus = document.activeElement;
    button.focus();
    idleTimers.push(setInterval(function () { text.textContent = warningText(deadline); }, 15000));
  }

  function logOutIdle() {
    var form = document.createElement("form");
    form.method = "post";
    form.action = container.dataset.logoutUrl;
    [["csrfmiddlewaretoken", csrfToken()], ["reason", "idle"]].forEach(function (pair) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = pair[0];
      input.value = pair[1];
      form.appendChild(input);
    });
    document.body.appendChild(form);
    form.submit();
  }

  // The server has just seen this person: count the idle time again from now.
  function heardFromServer() {
    if (!idleSeconds) { return; }
    idleTimers.forEach(function (timer) { clearTimeout(timer); clearInterval(timer); });
    var focusBack = warning && warning.returnFocus;
    hideWarning();
    if (focusBack && document.body.contains(focusBack)) { focusBack.focus(); }
    var deadline = Date.now() + idleSeconds * 1000;
    idleTimers = [
      setTimeout(function () { showWarning(deadline); }, (idleSeconds - warningSeconds) * 1000),
      setTimeout(logOutIdle, idleSeconds * 1000)
    ];
  }

  function keepAlive() {
    var headers = Object.assign({ "X-CSRFToken": csrfToken() }, AJAX);
    send(container.dataset.keepAliveUrl, { method: "POST", headers: headers, credentials: "same-origin" })
      .then(function (response) {
        if (response.ok) {
          heardFromServer();
        } else if (response.status === 401) {
          response.json().then(function (body) { window.location.assign(body.login_url); });
        }
      }, function () {
        if (warning) { warning.querySelector("p").textContent = t("no_server"); }
      });
  }

  container.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList.contains("survey-form")) { return; }
    event.preventDefault();
    if (busy) { return; }
    var data = new FormData(form);
    var submitter = event.submitter;
    data.set("nav", submitter && submitter.name === "nav" ? submitter.value : (form.querySelector('[name="nav"][value="finish"]') ? "finish" : "next"));
    clearErrors(form);
    save(form, data, 0);
  });

  // Links to other pages (from the missing-answers summary) load in place.
  container.addEventListener("click", function (event) {
    var link = event.target.closest("a.page-link");
    if (!link || busy) { return; }
    event.preventDefault();
    loadPage(link.getAttribute("href"), true);
  });

  window.addEventListener("popstate", function (event) {
    if (event.state && event.state.url) { loadPage(event.state.url, false); }
  });
  history.replaceState({ url: container.querySelector("form.survey-form").action }, "", window.location.href);
  followAnswers();
  restoreUnsaved();
  heardFromServer();
  // The page's buttons are this script's from here on (a test waits for it before clicking).
  container.dataset.enhanced = "true";
}());

/*
 * The rule language of surveys/rules.py, evaluated as it is there (ODK's blank semantics), without eval:
 * Survey.rules.evaluate. surveys/tests/rule_cases.json holds the cases both agree on (taking/tests run them here,
 * in node and in Chromium). It reads no page, so node can load it on its own.
 */
(function (Survey) {
  "use strict";
  var NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;
  var DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
  var TIME = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
  var DATETIME = /^([0-9]{4}-[0-9]{2}-[0-9]{2})T(([01][0-9]|2[0-3]):[0-5][0-9])$/;
  var READ_AS = {
    integer: "number", decimal: "number", date: "date", time: "time", datetime: "datetime", short_text: "text",
    long_text: "text", single: "choice", multiple: "choices"
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
    if (readAs === "time") { return TIME.test(value) ? value : null; }
    if (readAs === "datetime") {
      var match = DATETIME.exec(value);
      return match && isDate(match[1]) ? value : null;
    }
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

  Survey.rules = { evaluate: evaluate };
}(window.Survey = window.Survey || {}));

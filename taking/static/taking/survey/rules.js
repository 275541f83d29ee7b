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
  var ORDERINGS = { gt: true, ge: true, lt: true, le: true };
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
    // An ordering on a single choice reads its numbered values as numbers (the server allows it on those only).
    if (readAs === "choice" && ORDERINGS[op]) { readAs = "number"; }
    var left = typed(text, readAs);
    if (op === "in") {
      return left !== null && rule.values.some(function (v) { return typed(v, readAs) === left; });
    }
    var right = rule.value !== null && typeof rule.value === "object" ?
      typed(answer(rule.value.q, answers, own), readAs) : typed(rule.value, readAs);
    if (left === null || right === null) { return op === "not_equals"; }
    return holds(op, left, right);
  }

  // Calculations (surveys/calculations.py), computed as Python computes them: IEEE doubles, an answer read as a
  // number only when written as one (else NaN, which arithmetic passes on), and the same text for a number.
  var MAX = 1e15;

  function toNumber(value) {
    if (typeof value === "number") { return value; }
    return NUMBER.test(value) ? parseFloat(value) : NaN;
  }

  function blank(value) {
    return typeof value === "string" ? value === "" : !isFinite(value);
  }

  function asText(value) {
    if (typeof value === "string") { return value; }
    if (!isFinite(value) || Math.abs(value) >= MAX) { return ""; }
    if (Number.isInteger(value)) { return value.toFixed(0); }
    var text = value.toFixed(10).replace(/0+$/, "").replace(/\.$/, "");
    return text === "-0" || text === "" ? "0" : text;
  }

  function value(expression, answers, kinds) {
    if (typeof expression === "number" || typeof expression === "string") { return expression; }
    if ("q" in expression) { return answer(expression.q, answers); }
    var fn = expression.fn, args = expression.args;
    if (fn === "if") {
      return value(evaluate(args[0], answers, kinds) ? args[1] : args[2], answers, kinds);
    }
    var values = args.map(function (arg) { return value(arg, answers, kinds); });
    if (fn === "concat") { return values.map(asText).join(""); }
    if (fn === "coalesce") { return blank(values[0]) ? values[1] : values[0]; }
    var numbers = values.map(toNumber);
    var a = numbers[0], b = numbers[1];
    if (fn === "neg") { return -a; }
    if (fn === "round") {
      if (!isFinite(a)) { return NaN; }
      var scale = Math.pow(10, b);
      var rounded = Math.floor(Math.abs(a) * scale + 0.5) / scale;
      return a < 0 || Object.is(a, -0) ? -rounded : rounded;
    }
    if (isNaN(a) || isNaN(b)) { return NaN; }
    if (fn === "add") { return a + b; }
    if (fn === "sub") { return a - b; }
    if (fn === "mul") { return a * b; }
    if (b === 0) { return NaN; }
    return fn === "div" ? a / b : a % b;
  }

  // The value of a calculation for answers (code to stored text, earlier calculations' included), as text.
  function calculate(expression, answers, kinds) {
    return asText(value(expression, answers, kinds || {}));
  }

  Survey.rules = { evaluate: evaluate, calculate: calculate };
}(window.Survey = window.Survey || {}));

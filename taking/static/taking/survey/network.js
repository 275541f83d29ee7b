/*
 * Requests to the server, and the one way they are retried (Survey.network.retried): a request that failed on
 * the network, timed out, or met a 502, 503 or 504 is sent again as it was (a page save with the same save_id:
 * the server applies a save_id once), after a backoff with a cap. Any other answer goes to the caller, never
 * retried: a 4xx will not go away. jmeter/plans/retry.groovy retries as this does.
 */
(function (Survey) {
  "use strict";
  var AJAX = { "X-Requested-With": "XMLHttpRequest", "Accept": "application/json" };
  var MAX_DELAY_MS = 15000;
  var MAX_ATTEMPTS = 8;          // seven retries: about a minute (retryDelay)
  var TIMEOUT_MS = 40000;        // nginx gives up on the server after 35 s
  var RETRYABLE = { 502: true, 503: true, 504: true };

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

  // Call request() (a new send each time) until its answer is not one to retry; before each retry, tell
  // retrying(attempt, delay in ms, retries in all). Resolve with that answer, or with null once the last retry
  // has failed too.
  function retried(request, retrying) {
    var attempt = 0;
    function again(response) {
      attempt += 1;
      if (attempt >= MAX_ATTEMPTS) { return null; }
      var delay = retryDelay(attempt, response);
      retrying(attempt, delay, MAX_ATTEMPTS - 1);
      return new Promise(function (resolve) { setTimeout(resolve, delay); }).then(run);
    }
    function run() {
      return request().then(function (response) {
        return RETRYABLE[response.status] ? again(response) : response;
      }, function () { return again(null); });
    }
    return run();
  }

  function isJson(response) {
    return (response.headers.get("Content-Type") || "").indexOf("application/json") === 0;
  }

  Survey.network = { AJAX: AJAX, send: send, retried: retried, isJson: isJson };
}(window.Survey = window.Survey || {}));

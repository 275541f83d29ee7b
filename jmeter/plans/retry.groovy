// JSR223 Assertion of every sampler of survey_taking.jmx, after the sampler's own
// assertions: an answer a browser's survey.js would retry (502, 503, 504, or no
// answer at all) is retried here too, the same way: the same request (for a save,
// the same answers and save_id), after a doubling delay (1, 2, 4, 8, 15 s) or
// Retry-After when that is longer, at most 8 attempts. A retried attempt is not
// a failure: the thread carries on with it.
// Its sample keeps its response code, so the results show what people met.
//
// It also sets the plain variables the plan's controllers and timers read, so that
// none of them runs a script: go_<label> (whether that sampler's attempt loop sends
// again: true for its first attempt and for a retry), retry_delay_ms (the wait
// before the next sample) and think_now_ms (the think time before a save).
def code = prev.getResponseCode()
def label = prev.getSampleLabel()
def retryable = (code in ["502", "503", "504"]) || !(code ==~ /\d{3}/)
int attempt = (vars.get("attempt") ?: "1") as int
if (retryable && attempt < 8) {
    prev.setSuccessful(true)
    def header = (prev.getResponseHeaders() =~ /(?im)^Retry-After:\s*(\d+)/)
    long seconds = header.find() ? (header.group(1) as long) : 0
    long backoff = Math.min(1000L << (attempt - 1), 15000L)
    long delayMs = seconds > 0 ? Math.max(Math.min(seconds * 1000, 60000L), backoff) : backoff
    vars.put("retry", "true")
    vars.put("retry_delay_ms", String.valueOf(delayMs))
    vars.put("think_now_ms", "0")
    vars.put("attempt", String.valueOf(attempt + 1))
    vars.put("go_" + label, "true")
} else {
    vars.put("retry", "false")
    vars.put("retry_delay_ms", "0")
    vars.put("think_now_ms", vars.get("think_ms"))
    vars.put("attempt", "1")
    // This sampler's attempts are over; every other sampler's next attempt loop starts with its first.
    for (other in ["login_form", "login", "display", "content", "change_page", "complete"]) {
        vars.put("go_" + other, other == label ? "false" : "true")
    }
}

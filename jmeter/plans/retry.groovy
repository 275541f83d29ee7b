// JSR223 Assertion of every sampler of survey_taking.jmx, after the sampler's own
// assertions: an answer a browser's survey.js would retry (502, 503, 504, or no
// answer at all) is retried here too, the same way: the same request (for a save,
// the same answers and save_id), after a doubling delay (1, 2, 4, 8, 15 s) or
// Retry-After when that is longer, at most 8 attempts. A retried attempt is not
// a failure: the thread carries on with it.
// Its sample keeps its response code, so the results show what people met.
def code = prev.getResponseCode()
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
    vars.put("attempt", String.valueOf(attempt + 1))
} else {
    vars.put("retry", "false")
    vars.put("attempt", "1")
}

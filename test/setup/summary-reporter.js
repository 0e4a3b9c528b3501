const fs = require('node:fs');

/** Prints one plain closing line, "tests: N passed, N failed[, N skipped]", as the very last line of the run. */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `tests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`;
    // Jest writes its own summary after every reporter; the exit hook puts this line after it. Written to the file
    // descriptor: when Jest force-exits it first turns the streams' write into a no-op.
    process.once('exit', () => fs.writeSync(2, line));
  }
}
module.exports = SummaryReporter;

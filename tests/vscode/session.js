// One debug session through the real cdt-gdb-adapter, driven by
// @vscode/debugadapter-testsupport's DebugClient as VS Code drives it.
// Prints one JSON report of what the adapter answered; the assertions are
// in test_dap.py (and the timings feed bench/run.py's dap-lazy row).
//
//   node session.js launch CONFIG SOURCE LINE   the frontend test program
//   node session.js attach CONFIG               a rank blocked in MPI
//   node session.js lazy CONFIG REPS            first pages of $mpipp(vec, buf, N)
//
// CONFIG is a launch.json configuration (JSON), as docs/vscode.md shows it.
'use strict';

const { DebugClient } = require('@vscode/debugadapter-testsupport');

const ADAPTER = require.resolve('cdt-gdb-adapter/dist/debugAdapter.js');
const TIMEOUT = 120000;

async function start() {
    const dc = new DebugClient('node', ADAPTER, 'gdb');
    dc.defaultTimeout = TIMEOUT;
    dc.output = [];
    dc.on('output', (event) => dc.output.push(event.body.output));
    await dc.start();
    await dc.initializeRequest({ adapterID: 'gdb', linesStartAt1: true, columnsStartAt1: true,
                                 pathFormat: 'path', supportsVariableType: true });
    return dc;
}

async function topFrame(dc, threadId) {
    const trace = await dc.stackTraceRequest({ threadId, startFrame: 0, levels: 20 });
    return trace.body.stackFrames[0];
}

async function locals(dc, frame) {
    const scopes = await dc.scopesRequest({ frameId: frame.id });
    const local = scopes.body.scopes.find((scope) => scope.name === 'Local');
    return (await dc.variablesRequest({ variablesReference: local.variablesReference }))
        .body.variables;
}

async function children(dc, variable) {
    return (await dc.variablesRequest({ variablesReference: variable.variablesReference }))
        .body.variables;
}

// A watch expression and its first page of children, timed as the editor
// sees it: from the evaluate request to the children listed.
async function watch(dc, frame, expression) {
    const begin = process.hrtime.bigint();
    const value = (await dc.evaluateRequest({ expression, frameId: frame.id,
                                              context: 'watch' })).body;
    const page = value.variablesReference ? await children(dc, value) : [];
    return { value, page, ms: Number(process.hrtime.bigint() - begin) / 1e6 };
}

// Output of a debug-console command ('>' sends it to gdb).
async function consoleCommand(dc, frame, command) {
    const before = dc.output.length;
    const answer = await dc.evaluateRequest({ expression: '>' + command, frameId: frame.id,
                                              context: 'repl' });
    // the command's console output arrives as output events before its answer
    return { answer: answer.body, output: dc.output.slice(before).join('') };
}

async function launch(config, source, line) {
    const dc = await start();
    const report = {};
    try {
        await dc.launchRequest(config);
        await dc.setBreakpointsRequest({ source: { path: source },
                                         breakpoints: [{ line: Number(line) }] });
        const stopped = dc.waitForEvent('stopped');
        await dc.configurationDoneRequest();
        const threadId = (await stopped).body.threadId;
        const frame = await topFrame(dc, threadId);
        report.frame = frame.name;
        report.locals = await locals(dc, frame);
        // the local's own children (MPICH), and $mpipp_type's (either MPI)
        const cell = report.locals.find((v) => v.name === 'local_cell');
        report.cellChildren = cell.variablesReference ? await children(dc, cell) : null;
        report.typeWatch = await watch(dc, frame, '$mpipp_type(local_cell)');
        const types = report.typeWatch.page.find((v) => v.name === 'array_of_types');
        report.typeChildren = await children(dc, types);
        report.small = await watch(dc, frame, '$mpipp(double_t, small, 1000)');
        report.big = await watch(dc, frame, '$mpipp(double_t, big, 10000000)');
        report.bigGroup = await children(dc, report.big.page[1]);
        // cells[1].halo[4]: repetition 1, struct block 0 (the vector), its
        // element, block 2, element 0
        const buffer = await watch(dc, frame, '$mpipp(cell_t, cells, 4)');
        report.cells = buffer.value;
        let node = buffer.value;
        let parent;
        report.cellPath = [];
        for (const index of [1, 0, 0, 2, 0]) {
            parent = node;
            const kids = await children(dc, node);
            node = kids[index];
            report.cellPath.push(node.name);
        }
        report.element = node;
        report.set = (await dc.setVariableRequest({
            variablesReference: parent.variablesReference, name: node.name, value: '-2.5' })).body;
        report.afterSet = (await dc.evaluateRequest({ expression: 'cells[1].halo[4]',
                                                      frameId: frame.id, context: 'watch' })).body;
        await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'PMPI_Finalize' }] });
        const again = dc.waitForEvent('stopped');
        await dc.continueRequest({ threadId });
        report.calls = await consoleCommand(dc, await topFrame(dc, (await again).body.threadId),
                                            'mpipp calls');
    } finally {
        await dc.disconnectRequest({ terminateDebuggee: true }).catch(() => {});
        await dc.stop();
    }
    return report;
}

async function attach(config) {
    const dc = await start();
    const report = {};
    try {
        await dc.attachRequest(config);
        await dc.configurationDoneRequest();
        // the adapter lets an attached process run on: Pause stops it
        const threads = (await dc.threadsRequest()).body.threads;
        const stopped = dc.waitForEvent('stopped');
        await dc.pauseRequest({ threadId: threads[0].id });
        await stopped;
        report.threads = threads.length;
        const frame = await topFrame(dc, threads[0].id);
        report.calls = await consoleCommand(dc, frame, 'mpipp calls');
    } finally {
        await dc.disconnectRequest({ terminateDebuggee: false }).catch(() => {});
        await dc.stop();
    }
    return report;
}

async function lazy(config, reps) {
    const dc = await start();
    const times = { 1000: [], 10000000: [] };
    const pages = {};
    try {
        await dc.launchRequest(config);
        await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'stop_here' }] });
        const stopped = dc.waitForEvent('stopped');
        await dc.configurationDoneRequest();
        const frame = await topFrame(dc, (await stopped).body.threadId);
        // each expression once: the adapter keeps a variable object per text
        for (let k = 0; k <= Number(reps); k++) {
            for (const n of [1000, 10000000]) {
                const seen = await watch(dc, frame, `$mpipp(vec, buf, ${n} + ${k} * 0)`);
                if (k > 0) {   // the first round warms up
                    times[n].push(seen.ms);
                }
                pages[n] = seen.page.length;
            }
        }
    } finally {
        await dc.disconnectRequest({ terminateDebuggee: true }).catch(() => {});
        await dc.stop();
    }
    return { times, pages };
}

const SCENARIOS = { launch, attach, lazy };

(async () => {
    const [scenario, config, ...args] = process.argv.slice(2);
    const report = await SCENARIOS[scenario](JSON.parse(config), ...args);
    process.stdout.write(JSON.stringify(report) + '\n');
})().catch((err) => {
    process.stderr.write('session.js: ' + (err.stack || err) + '\n');
    process.exit(1);
});

// node_workers.js - Node with worker_threads: the main thread starts 3
// workers (each a V8 isolate on a thread of its own); each builds strings,
// an array and a Map (the JavaScript heap: V8's own mmap'd pages), sorts
// and joins them, makes BUFFERS ArrayBuffers of 12345 bytes (their backing
// store is malloc'd by Node's array buffer allocator, one block of exactly
// that size each, freed when the worker's isolate is disposed) and posts a
// checksum back; the main thread prints the results in worker order.
//
// Expected facts (tests/e2e/real-node.sh):
//   blocks of 12345 bytes: 3 x 100 = 300 allocations (3703500 bytes), none
//   live at exit.
// stdout:
//   worker 0: 30000 entries, checksum 5033, buffers 100
//   worker 1: 30000 entries, checksum 7812, buffers 100
//   worker 2: 30000 entries, checksum 3823, buffers 100
//   workers 3 done
// and exit status 7 (process.exitCode).
'use strict';
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');

const WORKERS = 3;
const ENTRIES = 30000;
const BUFFERS = 100;
const BUFFER_BYTES = 12345;

function work(id) {
	const map = new Map();
	const words = [];
	for (let i = 0; i < ENTRIES; i++) {
		const w = 'w' + ((i * 7919 + id) % 10007);
		words.push(w);
		map.set(w, (map.get(w) || 0) + 1);
	}
	words.sort();
	const text = words.join(',');
	let checksum = 0;
	for (let i = 0; i < text.length; i += 97)
		checksum = (checksum * 31 + text.charCodeAt(i)) % 10007;
	const buffers = [];
	for (let i = 0; i < BUFFERS; i++)
		buffers.push(new ArrayBuffer(BUFFER_BYTES));
	return { id, entries: words.length, checksum, buffers: buffers.length };
}

if (isMainThread) {
	const results = new Array(WORKERS);
	let done = 0;
	for (let id = 0; id < WORKERS; id++) {
		const worker = new Worker(__filename, { workerData: id });
		worker.on('message', (r) => { results[r.id] = r; });
		worker.on('exit', (code) => {
			if (code !== 0)
				throw new Error('worker ' + id + ' exited with ' + code);
			if (++done === WORKERS) {
				for (const r of results)
					console.log('worker ' + r.id + ': ' + r.entries + ' entries, checksum ' +
						r.checksum + ', buffers ' + r.buffers);
				console.log('workers ' + WORKERS + ' done');
				process.exitCode = 7;
			}
		});
	}
} else {
	parentPort.postMessage(work(workerData));
}

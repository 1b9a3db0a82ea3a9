// Drives base-context with the upstream's own RpcClient, unchanged: `node shim.cjs` stands
// in for the upstream CLI. Run by TestRPCUpstreamClient (cli/rpc_clients_test.go) with
// BASE_CONTEXT_HOME, WORKDIR and SCRIPT set; exits nonzero on the first failed check.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { RpcClient } from "@mariozechner/pi-coding-agent";

const client = new RpcClient({
	cliPath: fileURLToPath(new URL("./shim.cjs", import.meta.url)),
	cwd: process.env.WORKDIR,
	args: ["--script", process.env.SCRIPT],
});
const step = (name) => console.log(`ok ${name}`);
const types = (events) => events.map((e) => e.type);

await client.start();
try {
	let state = await client.getState();
	assert.equal(state.isStreaming, false);
	assert.equal(state.messageCount, 0);
	assert.match(state.sessionId, /^[0-9a-f-]{36}$/);
	assert.equal(state.model.provider, "script");
	const firstSession = state.sessionId;
	step("get_state");

	// prompt and wait; a steer and a follow-up sent while it streams.
	const all = [];
	const unsubscribe = client.onEvent((e) => all.push(e));
	let ends = 0;
	const twoRuns = new Promise((resolve) => client.onEvent((e) => e.type === "agent_end" && ++ends === 2 && resolve()));
	const firstDelta = new Promise((resolve) => client.onEvent((e) => e.type === "message_update" && resolve()));
	await client.prompt("Count slowly");
	await firstDelta;
	await client.steer("Now say steered");
	await client.followUp("Then say followed");
	await twoRuns;
	unsubscribe();
	const users = all.filter((e) => e.type === "message_end" && e.message.role === "user").map((e) => e.message.content[0].text);
	assert.deepEqual(users, ["Count slowly", "Now say steered", "Then say followed"]);
	assert.equal(types(all).filter((t) => t === "agent_start").length, 2);
	step("prompt, steer, follow_up");

	assert.equal(await client.getLastAssistantText(), "followed");
	const messages = await client.getMessages();
	assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "user", "assistant", "user", "assistant"]);
	step("get_messages, get_last_assistant_text");

	// abort: the long answer ends aborted.
	const aborted = client.collectEvents(30000);
	const delta = new Promise((resolve) => client.onEvent((e) => e.type === "message_update" && resolve()));
	await client.prompt("Count for a long time");
	await delta;
	await client.abort();
	const events = await aborted;
	const last = events.filter((e) => e.type === "message_end").at(-1);
	assert.equal(last.message.stopReason, "aborted");
	state = await client.getState();
	assert.equal(state.isStreaming, false);
	step("abort");

	const bash = await client.bash("echo hello; exit 4");
	assert.equal(bash.output, "hello\n");
	assert.equal(bash.exitCode, 4);
	assert.equal(bash.cancelled, false);
	step("bash");

	const models = await client.getAvailableModels();
	assert.ok(models.some((m) => m.provider === "script" && m.id === "default"));
	const model = await client.setModel("script", "default");
	assert.equal(model.id, "default");
	await client.setThinkingLevel("high");
	assert.equal((await client.getState()).thinkingLevel, "high");
	assert.equal(await client.cycleModel(), null);
	step("models, thinking");

	const stats = await client.getSessionStats();
	assert.equal(stats.sessionId, firstSession);
	assert.equal(stats.userMessages, 4);
	assert.equal(stats.assistantMessages, 4);
	assert.equal(stats.totalMessages, 9);
	assert.equal(stats.tokens.input, 350);
	assert.equal(stats.tokens.output, 12);
	assert.equal(stats.contextUsage.tokens, 131);
	step("get_session_stats");

	assert.deepEqual(await client.newSession(), { cancelled: false });
	state = await client.getState();
	assert.notEqual(state.sessionId, firstSession);
	assert.equal(state.messageCount, 0);
	step("new_session");

	assert.deepEqual(await client.getCommands(), []);
	await assert.rejects(client.exportHtml(), /not supported/);
	step("get_commands, export_html");
} finally {
	await client.stop();
}

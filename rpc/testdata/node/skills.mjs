// Skills and prompt templates through the upstream's own RpcClient: get_commands in its
// shape, /template and /skill:NAME expanded in a prompt, skill_activated when the model reads
// a SKILL.md. Run by TestRPCUpstreamSkills (cli/rpc_skills_test.go) with BASE_CONTEXT_HOME,
// WORKDIR (a repository with a skill and a template) and SCRIPT set.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { RpcClient } from "@mariozechner/pi-coding-agent";

const dir = process.env.WORKDIR;
const client = new RpcClient({
	cliPath: fileURLToPath(new URL("./shim.cjs", import.meta.url)),
	cwd: dir,
	args: ["--script", process.env.SCRIPT],
});
const step = (name) => console.log(`ok ${name}`);

await client.start();
try {
	assert.deepEqual(await client.getCommands(), [
		{
			name: "review",
			description: "Review a path",
			source: "prompt",
			sourceInfo: { path: `${dir}/.base-context/prompts/review.md`, source: "local", scope: "project", origin: "top-level", baseDir: `${dir}/.base-context/prompts` },
		},
		{
			name: "skill:greet",
			description: "Greets the user warmly.",
			source: "skill",
			sourceInfo: { path: `${dir}/.agents/skills/greet/SKILL.md`, source: "local", scope: "project", origin: "top-level", baseDir: `${dir}/.agents/skills/greet` },
		},
	]);
	step("get_commands");

	// The first answer reads the skill: skill_activated follows the read's tool_execution_end.
	const events = [];
	client.onEvent((e) => events.push(e));
	await client.promptAndWait('/review src/ "error handling"');
	const activated = events.filter((e) => e.type === "skill_activated");
	assert.deepEqual(activated, [{ type: "skill_activated", name: "greet", path: `${dir}/.agents/skills/greet/SKILL.md` }]);
	await client.promptAndWait("/skill:greet be brief");
	await client.promptAndWait("/unknown stays");
	const users = (await client.getMessages()).filter((m) => m.role === "user").map((m) => m.content[0].text);
	assert.deepEqual(users, [
		"Review src/ for error handling.",
		`<skill name="greet" location="${dir}/.agents/skills/greet/SKILL.md">\nReferences are relative to ${dir}/.agents/skills/greet.\n\nSay "Hello!".\n</skill>\n\nbe brief`,
		"/unknown stays",
	]);
	step("templates, skills");

	// A new session's header is followed by skills_loaded.
	const loaded = new Promise((resolve) => client.onEvent((e) => e.type === "skills_loaded" && resolve(e)));
	await client.newSession();
	assert.deepEqual((await loaded).skills.map((s) => s.name), ["greet"]);
	step("skills_loaded");
} finally {
	await client.stop();
}

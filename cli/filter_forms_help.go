package cli

// Help is the long help of `filter deltas --help`.
func (c *DeltasCmd) Help() string {
	return `Assistant message_start, message_update and message_end gain "messageId":N after "type";
updates lose their message snapshot and the nested partial; toolcall_start gains
"toolCall":{"id","name"}. The same as --json-deltas writes. Every other line passes through
unchanged, byte for byte.

Examples:

  base-context filter deltas run.jsonl > run.deltas.jsonl
  base-context --mode json "List files" | base-context filter deltas | jq -c 'select(.type=="message_update")'`
}

// Help is the long help of `filter expand --help`.
func (c *ExpandCmd) Help() string {
	return `Rebuilds each update's message snapshot and partial from the message_start and the updates
since, and drops messageId: the inverse of filter deltas. Every other line passes through
unchanged, byte for byte.

Examples:

  base-context filter expand run.deltas.jsonl > run.jsonl
  base-context filter expand run.deltas.jsonl | base-context filter deltas | cmp - run.deltas.jsonl`
}

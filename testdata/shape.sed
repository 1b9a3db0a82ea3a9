# The shape of an event stream, one line per event: its type, the role of a message_start
# or message_end, the nested type of a message_update. Used by testdata/script/agent_*.txtar
# to compare our streams' structure with the reference streams (sed -E -f shape.sed).
s/^\{"type":"(message_start|message_end)"(,"messageId":[0-9]+)?,"message":\{"role":"([A-Za-z]+)".*/\1 \3/
t
s/^\{"type":"message_update"(,"messageId":[0-9]+)?,"assistantMessageEvent":\{"type":"([a-z_]+)".*/message_update \2/
t
s/^\{"type":"([a-z_]+)".*/\1/
t
s/.*/NOT AN EVENT: &/

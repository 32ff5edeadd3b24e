// Sub-agents on the progress page: their steps (progress events with `subagent`) are listed per
// sub-agent, in one group that moves under the `delegate` step once that step finishes.

const GROUP_ID = "subagent-group";

// Until the delegate step arrives, the group waits in a list item of its own at the end.
function groupIn(steps) {
  const waiting = [...steps.children].find((li) => li.dataset.testid === GROUP_ID);
  if (waiting) return waiting.querySelector("ul");
  const holder = document.createElement("li");
  holder.className = "subagent-holder";
  holder.dataset.testid = GROUP_ID;
  const group = document.createElement("ul");
  group.className = "subagents";
  holder.append(group);
  steps.append(holder);
  return group;
}

function agentIn(group, subagent) {
  const found = [...group.children].find((li) => li.dataset.subagentId === subagent.id);
  if (found) return found.querySelector("ol");
  const agent = document.createElement("li");
  agent.className = "subagent";
  agent.dataset.testid = "subagent";
  agent.dataset.subagentId = subagent.id ?? "";
  const title = document.createElement("span");
  title.className = "subagent-description";
  title.textContent = subagent.description ?? subagent.id ?? "";
  const list = document.createElement("ol");
  list.className = "steps subagent-steps";
  agent.append(title, list);
  group.append(agent);
  return list;
}

/** Add one sub-agent step under its sub-agent, in the group of the current delegate call. */
export function addSubagentStep(steps, data) {
  const item = document.createElement("li");
  item.className = "step";
  item.dataset.testid = "subagent-step";
  item.dataset.node = data.node ?? "";
  item.textContent = `${data.icon ?? ""} ${data.display_name ?? data.node ?? ""}`.trim();
  if (data.tool_name) {
    const tool = document.createElement("code");
    tool.className = "step-tool";
    tool.textContent = data.tool_name;
    item.append(" ", tool);
  }
  agentIn(groupIn(steps), data.subagent).append(item);
}

/** Move the waiting sub-agent group under `item` when it is the step that ran `delegate`. */
export function nestUnderDelegate(steps, item, data) {
  const names = Array.isArray(data.tool_names) ? data.tool_names : [];
  const holder = [...steps.children].find((li) => li.dataset.testid === GROUP_ID);
  if (!holder || !names.includes("delegate")) return;
  item.classList.add("step-delegate");
  item.append(holder.querySelector("ul"));
  holder.remove();
}

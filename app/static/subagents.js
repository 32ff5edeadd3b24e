// Sub-agents on the progress page: their steps (progress events with `subagent`) are listed per
// sub-agent, in one group that moves under the `delegate` step once that step finishes.

const GROUP_ID = "subagent-group";

function groupIn(steps) {
  let group = steps.querySelector(`[data-testid="${GROUP_ID}"]`);
  if (!group) {
    group = document.createElement("ul");
    group.className = "subagents";
    group.dataset.testid = GROUP_ID;
    steps.append(group);
  }
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
  const group = [...steps.children].find((li) => li.dataset.testid === GROUP_ID);
  if (!group || !names.includes("delegate")) return;
  group.dataset.testid = "subagent-group-done";
  item.classList.add("step-delegate");
  item.append(group);
}

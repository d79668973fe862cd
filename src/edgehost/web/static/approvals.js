// Approvals: the calls waiting for the person's answer, first one shown with its countdown (the wait
// the host gave it), the rest counted; an answer may edit the arguments or give a reason for a denial.
"use strict";

function addApproval(request) {
  if (state.approvals.some((r) => r.id === request.id)) return;
  // When the host denies it unanswered: after the wait it gave this request (the setting when it was
  // asked), less what a request from the hello has already waited.
  request.waits = request.timeout_s ?? state.approvalTimeoutS ?? 0;
  request.deadline = Date.now() + (request.waits - (request.waited_s || 0)) * 1000;
  state.approvals.push(request);
  showApproval();
}

function showCountdown() {
  const request = state.approvals[0];
  if (!request || !request.waits) { $("approval-countdown").textContent = ""; return; }
  const left = Math.max(0, Math.round((request.deadline - Date.now()) / 1000));
  $("approval-countdown").textContent = "Denied automatically in " + Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
}
setInterval(showCountdown, 1000);

function removeApproval(id) {
  state.approvals = state.approvals.filter((r) => r.id !== id);
  showApproval();
}

function showApproval() {
  const dialog = $("approval");
  const request = state.approvals[0];
  if (!request) { if (dialog.open) dialog.close(); return; }
  if (dialog.dataset.id !== request.id) {
    dialog.dataset.id = request.id;
    // The call belongs to a conversation: show it behind the dialog, so the user sees what asked.
    if (request.conversation_id !== null && request.conversation_id !== state.current) {
      openConversation(request.conversation_id).catch(() => {});
    }
    $("approval-what").textContent = request.tool + " on " + request.server + " (" + request.risk + ")" +
      (request.asked_from ? ", asked from " + request.asked_from : "");
    const reasons = $("approval-reasons");
    reasons.textContent = "";
    for (const reason of request.reasons) {
      const item = document.createElement("li");
      item.textContent = reason;
      reasons.appendChild(item);
    }
    $("approval-arguments").value = JSON.stringify(request.arguments, null, 2);
    $("approval-reason").value = "";
    $("approval-error").hidden = true;
    $("approval-conversation").hidden = !request.allowed_scopes.includes("conversation");
  }
  $("approval-queue").textContent = state.approvals.length > 1 ? state.approvals.length - 1 + " more waiting" : "";
  showCountdown();
  if (!dialog.open) dialog.showModal();
}

function answerApproval(allow, scope) {
  const request = state.approvals[0];
  if (!request) return;
  const fields = { request_id: request.id, allow };
  if (allow) {
    try {
      const edited = JSON.parse($("approval-arguments").value);
      if (JSON.stringify(edited) !== JSON.stringify(request.arguments)) fields.arguments = edited;
    } catch (error) {
      $("approval-error").textContent = "The arguments are not valid JSON: " + error.message;
      $("approval-error").hidden = false;
      return;
    }
    fields.scope = scope;
  } else {
    fields.reason = $("approval-reason").value;
  }
  send("approve", fields).catch((error) => notice(error.message, true));
  removeApproval(request.id); // the ApprovalResolved event will say so too, to every page
}

$("approval-once").onclick = () => answerApproval(true, "once");
$("approval-conversation").onclick = () => answerApproval(true, "conversation");
$("approval-deny").onclick = () => answerApproval(false);
$("approval").oncancel = (event) => event.preventDefault(); // Escape does not answer for the user

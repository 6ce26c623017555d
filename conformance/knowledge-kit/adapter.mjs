// A Knowledge Kit store adapter that drives git-records through its contract
// protocol (docs/contract-protocol.md): every method spawns
// `git-records --store <storeRoot> contract <op>` synchronously, writes one
// JSON request on stdin and reads one JSON answer from stdout.
//
// The binary is $GIT_RECORDS_BIN, or `git-records` on PATH.
// Plain modern JavaScript, no dependencies.

import { spawnSync } from "node:child_process";
import * as path from "node:path";

const BIN = process.env.GIT_RECORDS_BIN || "git-records";

// cliFailure is any outcome without an error envelope (the protocol's
// CLI_FAILURE): the process did not start, died, or printed non-JSON.
function cliFailure(message, extra = {}) {
  const err = new Error(message);
  err.code = "CLI_FAILURE";
  Object.assign(err, extra);
  return err;
}

// fromEnvelope makes the Error a client expects: the message, the code and
// every extra field of the envelope copied on.
function fromEnvelope(envelope) {
  const { message, ...extra } = envelope;
  const err = new Error(message ?? String(envelope.code));
  Object.assign(err, extra);
  return err;
}

function parseJSON(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// lastJSONLine finds an error envelope printed on stderr instead of stdout
// (the protocol allows it as the last JSON line of stderr).
function lastJSONLine(text) {
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    const v = parseJSON(lines[i]);
    if (v && typeof v === "object") return v;
  }
  return undefined;
}

export class GitRecordsStore {
  /** @param {{ storeRoot: string }} options */
  constructor({ storeRoot } = {}) {
    if (!storeRoot) throw new Error("storeRoot is required");
    this._root = path.resolve(storeRoot);
  }

  _call(op, request) {
    const run = spawnSync(BIN, ["--store", this._root, "contract", op], {
      input: JSON.stringify(request),
      encoding: "utf8",
      maxBuffer: 256 << 20,
    });
    if (run.error) {
      throw cliFailure(`git-records contract ${op}: cannot run ${BIN}: ${run.error.message}`);
    }
    const stdout = run.stdout.trim();
    const answer = stdout === "" ? undefined : parseJSON(stdout);
    if (answer && typeof answer === "object" && answer.error) throw fromEnvelope(answer.error);
    if (run.status === 0 && answer && typeof answer === "object" && "result" in answer) {
      return answer.result;
    }
    const fromStderr = lastJSONLine(run.stderr || "");
    if (fromStderr && fromStderr.error) throw fromEnvelope(fromStderr.error);
    const why = run.signal ? `killed by ${run.signal}` : `exit ${run.status}`;
    throw cliFailure(`git-records contract ${op}: ${why}, no answer on stdout: ${(run.stderr || stdout).trim().slice(0, 2000)}`, {
      status: run.status,
      stdout: run.stdout,
      stderr: run.stderr,
    });
  }

  // JSON.stringify drops undefined values, so absent arguments stay absent.
  async create(input) {
    return this._call("create", { input });
  }

  async update(id, fields, evidence) {
    return this._call("update", { id, fields, evidence });
  }

  async link(sourceId, links, evidence) {
    return this._call("link", { source_id: sourceId, links, evidence });
  }

  async propose(conceptId, proposerId, evidence) {
    return this._call("propose", { concept_id: conceptId, proposer_id: proposerId, evidence });
  }

  async apply(conceptId, proposerId, evidence) {
    return this._call("apply", { concept_id: conceptId, proposer_id: proposerId, evidence });
  }

  async reject(conceptId, proposerId, evidence) {
    return this._call("reject", { concept_id: conceptId, proposer_id: proposerId, evidence });
  }

  async supersede(newId, supersededIds, evidence) {
    return this._call("supersede", { new_id: newId, superseded_ids: supersededIds, evidence });
  }

  async retire(id, targetStatus, evidence) {
    return this._call("retire", { id, target_status: targetStatus, evidence });
  }

  async get(id) {
    return this._call("get", { id });
  }

  async getLinks(id) {
    return this._call("get-links", { id });
  }

  async listByCategory(category, options) {
    return this._call("list-by-category", { category, options });
  }

  async listByType(type, options) {
    return this._call("list-by-type", { type, options });
  }

  async reindex() {
    return this._call("reindex", {});
  }
}

export default GitRecordsStore;

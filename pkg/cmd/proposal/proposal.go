// Package proposal holds what the proposal commands (propose, apply,
// reject, proposals, conflicts) share.
package proposal

// ProposerHelp says what --proposer takes: propose names the proposer
// record; apply and reject also take a proposal id (git records proposals).
const ProposerHelp = "record handle (id, alias or 8+ character prefix) of the proposer; apply and reject also take a proposal id from git records proposals, and otherwise act on the proposer's latest pending proposal"

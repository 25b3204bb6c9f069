/*
 * What a run checks, in one word (the output `gate`): the operations `operation_id` names, one
 * branch of a project, the whole project, a project before the teardown of one of its branches, or
 * (listing only) no gate but the list of the projects, or a sweep of a project's stale branches.
 */
export type GateKind = 'operations' | 'branch' | 'project' | 'teardown' | 'projects' | 'sweep'

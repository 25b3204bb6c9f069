/*
 * The action and the command with the same case, side by side: each against a world of its own
 * made by `setup` (timelines move by reads: two runs on one server would move each other's); the
 * command writes its --dotenv file, read back here.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BundleRun, CommandRun } from './run-bundle.ts'
import type { ApiServer } from '../neon/server.ts'
import type { World } from '../neon/world.ts'
import { gateCommand, type GateCommandOptions, inTempDir } from './command.js'
import { runAction, serve } from './action.js'

export interface Both {
  action: BundleRun
  command: CommandRun
  /** The command's --dotenv file. */
  dotenv: string
  servers: ApiServer[]
}

/** The action with `inputs` and the command with `flags`, each on a world `setup` makes. */
export async function bothBundles(
  setup: (world: World) => void,
  inputs: Record<string, string>,
  flags: string[],
  options: GateCommandOptions = {},
  served: Parameters<typeof serve>[0] = {}
): Promise<Both> {
  const worlds = await Promise.all([serve(served), serve(served)])
  for (const { world } of worlds) setup(world)
  return inTempDir(async (dir) => {
    const dotenv = join(dir, 'gate.env')
    const [action, command] = await Promise.all([
      runAction(worlds[0].server, inputs),
      gateCommand(worlds[1].server, [...flags, '--dotenv', dotenv], options)
    ])
    return {
      action,
      command,
      dotenv: readFileSync(dotenv, 'utf8'),
      servers: worlds.map(({ server }) => server)
    }
  })
}

/** A variable of the command's --dotenv file (`GATE_<name>`). */
export const dotenvValue = (text: string, name: string) =>
  new RegExp(`^GATE_${name}=(.*)$`, 'm').exec(text)?.[1]

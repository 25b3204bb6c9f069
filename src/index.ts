import { failUnexpectedly, run } from './runner/main.js'

const outcome = await run().catch(failUnexpectedly)
// A request cut short by cancellation may still hold a socket open; the runner wants us gone now.
if (outcome === 'cancelled') process.exit(1)

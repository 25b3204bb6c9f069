/*
 * The run's report as the front ends publish it: report/'s summary, first line, error line and
 * outputs, over the steps' sections in the gate's order (steps.ts).
 */
import { errorLine as errorLineOf } from '../report/headline.js'
import {
  buildOutputs as buildOutputsOf,
  typedOutputs as typedOutputsOf
} from '../report/outputs.js'
import type { RunReport } from '../report/report.js'
import {
  headlineText as headlineTextOf,
  renderSummary as renderSummaryOf,
  renderSummaryWithin as renderSummaryWithinOf,
  renderTextReport as renderTextReportOf,
  type SummaryOptions
} from '../report/summary.js'
import { SECTIONS } from './steps.js'

export const errorLine = (report: RunReport) => errorLineOf(SECTIONS, report)
export const headlineText = (report: RunReport) => headlineTextOf(SECTIONS, report)
export const renderSummary = (report: RunReport, options?: SummaryOptions) =>
  renderSummaryOf(SECTIONS, report, options)
export const renderSummaryWithin = (
  report: RunReport,
  maxBytes: number,
  options?: SummaryOptions
) => renderSummaryWithinOf(SECTIONS, report, maxBytes, options)
export const renderTextReport = (report: RunReport) => renderTextReportOf(SECTIONS, report)
export const typedOutputs = (report: RunReport, maxBytes?: number) =>
  typedOutputsOf(SECTIONS, report, maxBytes)
export const buildOutputs = (report: RunReport) => buildOutputsOf(SECTIONS, report)

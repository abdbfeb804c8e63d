#pragma once

// Ownership helpers for Qt Charts. Two of its APIs leave objects without an owner:
// QChartView::setChart releases the previous chart without deleting it, and a QAreaSeries never
// owns its boundary line series (it is even created as a child of its upper series until a chart
// takes it). Every chart replacement and area series in the views goes through these, so no
// chart or boundary line outlives what shows it.

class QAreaSeries;
class QChart;
class QChartView;

namespace tracedesk::views {

// Shows `chart` in `view` and deletes the chart shown before. Not for use from a signal of the
// old chart or of its series, which would delete their sender. The new chart follows the
// view's palette (chartpalette.h).
void replaceChart(QChartView *view, QChart *chart);

// Adds `area` to `chart` and makes its upper and lower line series children of the area, so
// removing the area from the chart (or deleting the chart) deletes its boundaries too.
void addAreaSeries(QChart *chart, QAreaSeries *area);

} // namespace tracedesk::views

#pragma once

// Charts that follow the application palette. Qt Charts draws with its own light theme and
// ignores QPalette, so a dark palette would leave every chart white. applyChartPalette paints
// a chart's background, title, legend and axes from a palette; followPalette keeps a chart
// view's chart (also the next one it shows) in step with the view's palette when it changes.
// Series colours are left alone: they carry meaning (categories, A and B).

class QChart;
class QChartView;
class QPalette;

namespace tracedesk::views {

void applyChartPalette(QChart *chart, const QPalette &palette);

// Applies the view's palette now and again on every palette or style change of the view.
// Panels that add axes after showing a chart call applyChartPalette(view) again.
void followPalette(QChartView *view);
void applyChartPalette(QChartView *view);

} // namespace tracedesk::views

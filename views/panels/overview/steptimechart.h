#pragma once

// StepTimeChart: one stacked bar per step, one colour per time category, drawn with QPainter
// (a Qt Charts bar chart took 30-50 ms of the GUI thread to build and lay out). Hovering a bar
// shows the step's values; clicking it emits stepClicked with its index. Beyond kMaxBars steps,
// each bar is a run of consecutive steps with their mean per category (more bars than pixels
// show nothing more); its tooltip names the run and clicking it emits the run's first step.
// Without steps it draws no chart, only a one-line reason (emptyText()), and shrinks to that
// line.

#include <QHash>
#include <QStringList>
#include <QWidget>

#include <vector>

namespace tracedesk::views {

// What a StepTimeChart draws, built by prepareStepChart() on any thread: with tens of thousands
// of steps, the labels and per-bar means take tens of milliseconds, which a panel computes
// beside its analysis on a worker rather than on the GUI thread.
struct StepChartData
{
    struct Shown
    {
        int category = 0;
        std::vector<double> means;   // per bar
    };
    QString title;
    int stepCount = 0;
    // Per step, kept only when a bar is one step: with more steps than bars, everything shown
    // is per bar, and tens of thousands of steps would hold ~170 bytes each for nothing.
    QStringList labels;
    std::vector<std::vector<double>> values;   // [category][step], milliseconds
    QStringList barLabels;   // per bar
    QStringList barFirst;    // per bar of several steps: its first and last step's labels
    QStringList barLast;
    QStringList categories;
    std::vector<Shown> shown;                  // categories with some time, in legend order
    std::vector<double> totals;                // per bar
    int perBar = 1;
};

// values[category][step] in milliseconds.
StepChartData prepareStepChart(const QString &title, QStringList stepLabels,
                               QStringList categories, std::vector<std::vector<double>> values);

class StepTimeChart : public QWidget
{
    Q_OBJECT

public:
    explicit StepTimeChart(QWidget *parent = nullptr);

    // values[category][step] in milliseconds.
    void setSteps(const QString &title, const QStringList &stepLabels,
                  const QStringList &categories, const std::vector<std::vector<double>> &values);
    // Shows what prepareStepChart() built; cheap whatever the step count.
    void setData(StepChartData data);
    // No result yet (cleared, or computing): no chart and no "no steps" message either.
    void clear();
    static constexpr int kMaxBars = 100;

    // A fixed colour for a category, whatever else the chart shows (else the default order).
    void setCategoryColour(const QString &category, QColor colour);

    QString title() const { return m_title; }
    int stepCount() const { return m_stepCount; }
    // Steps per bar: 1, or the run length when there are more than kMaxBars steps.
    int stepsPerBar() const { return m_perBar; }
    int barCount() const;
    // The categories drawn (those with some time), in legend order, and their colours.
    QStringList shownCategories() const;
    QColor colourOf(int shown) const;
    // The height of a shown category's part of a bar: the mean over the bar's steps.
    double barValue(int shown, int bar) const;
    // The bar's steps and mean per category (the step's values when a bar is one step).
    QString barText(int bar) const;
    int categoryCount() const { return int(m_categories.size()); }
    // One step's values; empty when bars hold several steps (see barText()).
    QString hoverText(int step) const;
    // What shows instead of a chart when there are no steps (empty while steps are shown).
    QString emptyText() const { return m_stepCount == 0 && !m_pending ? m_emptyText : QString(); }
    void setEmptyText(const QString &text) { m_emptyText = text; }

    // Where a bar is drawn, and which bar is under a point (-1 for none).
    QRectF barRect(int bar) const;
    int barAt(QPointF pos) const;

    QSize sizeHint() const override;

signals:
    void stepClicked(int step);

protected:
    void paintEvent(QPaintEvent *) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *) override;
    bool event(QEvent *event) override;

private:
    using Shown = StepChartData::Shown;
    struct Geometry
    {
        QRectF plot;
        double yMax = 1;
        int legendRows = 1;
    };
    Geometry geometry() const;
    QRectF barRectIn(const Geometry &g, int bar) const;
    void setShrunk(bool shrunk);

    QString m_title;
    QString m_emptyText;
    bool m_pending = true;   // steps not known yet (new, or clear())
    bool m_shrunk = false;
    int m_stepCount = 0;
    QStringList m_labels;
    QStringList m_barLabels;
    QStringList m_barFirst;
    QStringList m_barLast;
    QStringList m_categories;
    std::vector<std::vector<double>> m_values;
    std::vector<Shown> m_shown;
    std::vector<double> m_totals;   // per bar
    QHash<QString, QColor> m_fixedColours;
    int m_perBar = 1;
    int m_hover = -1;
};

} // namespace tracedesk::views

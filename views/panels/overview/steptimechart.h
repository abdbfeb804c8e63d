#pragma once

// StepTimeChart: one stacked bar per step, one series per time category (Qt Charts
// QStackedBarSeries). Hovering a segment shows the step's values; clicking a step emits
// stepClicked with its index. Beyond kMaxBars steps, each bar is a run of consecutive steps
// with their mean per category (Qt Charts costs O(n^2) in categories, and more bars than pixels
// show nothing more); its tooltip names the run and clicking it emits the run's first step. Without steps it draws no chart, only a one-line reason
// (emptyText()), and shrinks to that line.

#include <QChartView>
#include <QStringList>
#include <vector>

namespace tracedesk::views {

class StepTimeChart : public QChartView
{
    Q_OBJECT

public:
    explicit StepTimeChart(QWidget *parent = nullptr);

    // values[category][step] in milliseconds.
    void setSteps(const QString &title, const QStringList &stepLabels, const QStringList &categories,
                  const std::vector<std::vector<double>> &values);
    // No result yet (cleared, or computing): no chart and no "no steps" message either.
    void clear();
    static constexpr int kMaxBars = 100;

    int stepCount() const { return int(m_labels.size()); }
    // Steps per bar: 1, or the run length when there are more than kMaxBars steps.
    int stepsPerBar() const { return m_perBar; }
    int barCount() const;
    // The bar's steps and mean per category (the step's values when a bar is one step).
    QString barText(int bar) const;
    int categoryCount() const { return int(m_categories.size()); }
    QString hoverText(int step) const;
    // What shows instead of a chart when there are no steps (empty while steps are shown).
    QString emptyText() const { return m_labels.isEmpty() && !m_pending ? m_emptyText : QString(); }
    void setEmptyText(const QString &text) { m_emptyText = text; }

signals:
    void stepClicked(int step);

protected:
    void drawForeground(QPainter *painter, const QRectF &rect) override;

private:
    void showEmpty();

    QString m_emptyText;
    int m_chartMinHeight = 240;
    bool m_empty = false;
    bool m_pending = true;   // steps not known yet (new, or clear())
    QStringList m_labels;
    QStringList m_categories;
    std::vector<std::vector<double>> m_values;
    int m_perBar = 1;
};

} // namespace tracedesk::views

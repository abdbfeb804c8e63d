#include "views/panels/memoryprofile/memoryprofilepanel.h"

#include "views/common/chartownership.h"
#include "views/common/chartpalette.h"
#include "views/common/niceaxis.h"
#include "views/panels/common/rowtable.h"
#include "views/panels/memoryprofile/memorybreakdownmodel.h"
#include "views/panels/opstats/tablecsv.h"
#include "views/panels/pytorch/frameworkpages.h"
#include "views/panels/pytorch/pytorchmemoryview.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

namespace tracedesk::views {

using namespace core::analysis;

namespace {

// Values in the unit the value itself reads best in ("1.50 KiB", "20.0 GiB"), never "0.000 GiB".
QString gibText(int64_t bytes) { return bytesText(double(bytes)); }

const char *activityName(MemoryActivity a)
{
    switch (a) {
    case MemoryActivity::Allocation: return "Allocation";
    case MemoryActivity::Deallocation: return "Deallocation";
    case MemoryActivity::Reservation: return "Reservation";
    case MemoryActivity::Expansion: return "Expansion";
    default: return "Unknown";
    }
}

} // namespace

MemoryProfilePanel::MemoryProfilePanel(QWidget *parent) : QWidget(parent)
{
    m_host = new QComboBox(this);
    m_memoryId = new QComboBox(this);
    m_host->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_memoryId->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_status = new QLabel(tr("No profile"), this);
    m_cards = new QLabel(this);
    m_cards->setTextFormat(Qt::RichText);
    m_hover = new QLabel(tr("Hover the chart to see an allocation event; click to show that "
                            "time on the timeline."), this);
    m_hover->setWordWrap(true);
    // Cards and hover text keep their full height; the chart and table share what is left.
    m_cards->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    m_hover->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    m_hover->setMinimumHeight(3 * m_hover->fontMetrics().lineSpacing());
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_chart = new QChart;
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chartView = new QChartView(m_chart, this);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setMinimumHeight(240);
    followPalette(m_chartView);

    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by op name"));
    m_filter->setClearButtonEnabled(true);
    m_export = new QPushButton(tr("Export CSV..."), this);
    m_model = new MemoryBreakdownModel(this);
    m_proxy = makeTableProxy(m_model, MemoryBreakdownModel::kSortRole,
                             MemoryBreakdownModel::OpName, this);
    m_table = makeRowTable(m_proxy, this);
    m_table->sortByColumn(MemoryBreakdownModel::AllocationGiB, Qt::DescendingOrder);
    m_table->setColumnWidth(MemoryBreakdownModel::OpName, 360);
    m_table->setColumnWidth(MemoryBreakdownModel::AllocationGiB, 150);
    m_table->setColumnWidth(MemoryBreakdownModel::RequestedGiB, 150);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Host:"), this));
    top->addWidget(m_host);
    top->addWidget(new QLabel(tr("Memory ID:"), this));
    top->addWidget(m_memoryId);
    top->addWidget(m_status, 1);

    auto *tableBox = new QWidget(this);
    auto *tableBar = new QHBoxLayout;
    tableBar->addWidget(new QLabel(tr("Memory breakdown at the peak"), tableBox), 1);
    tableBar->addWidget(m_filter, 1);
    tableBar->addWidget(m_export);
    auto *tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addLayout(tableBar);
    tableLayout->addWidget(m_table, 1);

    auto *content = new QWidget(this);
    auto *contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addWidget(m_cards);
    auto *split = new QSplitter(Qt::Vertical, content);
    auto *chartBox = new QWidget(split);
    auto *chartLayout = new QVBoxLayout(chartBox);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->addWidget(m_chartView, 1);
    chartLayout->addWidget(m_hover);
    split->addWidget(chartBox);
    split->addWidget(tableBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    contentLayout->addWidget(split, 1);

    m_empty = new QLabel(tr("This profile has no allocator events.\nThe memory profile needs "
                            "MemoryAllocation / MemoryDeallocation events on /host:CPU\n"
                            "(captured with host_tracer_level 2 or higher)."), this);
    m_empty->setAlignment(Qt::AlignCenter);
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(content);
    m_stack->addWidget(m_empty);

    // PyTorch traces get their own page; the panel's own content is the classic page.
    auto *classic = new QWidget(this);
    m_pytorch = new PyTorchMemoryView(this);
    connect(m_pytorch, &PyTorchMemoryView::timeActivated, this, &MemoryProfilePanel::timeActivated);
    connect(m_pytorch, &PyTorchMemoryView::computed, this, &MemoryProfilePanel::computed);
    m_pages = new FrameworkPages(this, classic, m_pytorch,
                                 [this](const AnalysisCachePtr &c) { m_pytorch->setAnalyses(c); });
    auto *layout = new QVBoxLayout(classic);
    layout->addLayout(top);
    layout->addWidget(m_stack, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_export, &QPushButton::clicked, this,
            [this] { exportTableCsv(this, *m_proxy, QStringLiteral("memory_breakdown.csv")); });
    connect(m_host, &QComboBox::currentIndexChanged, this, [this] { fillMemoryIds(); });
    connect(m_memoryId, &QComboBox::currentIndexChanged, this, [this] { showProfile(); });
    auto activate = [this](const QModelIndex &index) {
        const QString name = index.data(MemoryBreakdownModel::kOpNameRole).toString();
        if (!name.isEmpty())
            emit opActivated(name);
    };
    connect(m_table, &QTableView::activated, this, activate);
    connect(m_table, &QTableView::clicked, this, activate);
}

MemoryProfilePanel::~MemoryProfilePanel() = default;

double MemoryProfilePanel::msFromStart(core::TimePs t) const
{
    return double(t - m_origin) / 1e9;
}

void MemoryProfilePanel::setAnalyses(AnalysisCachePtr cache)
{
    cache = m_pages->route(std::move(cache));
    m_cache = std::move(cache);
    recompute();
}

QString MemoryProfilePanel::statusText() const { return m_status->text(); }
QString MemoryProfilePanel::hoverText() const { return m_hover->text(); }
QString MemoryProfilePanel::summaryText() const { return m_cards->text(); }

const AllocatorProfile *MemoryProfilePanel::currentProfile() const
{
    if (!m_set)
        return nullptr;
    return m_set->find(m_host->currentText().toStdString(), m_memoryId->currentText().toStdString());
}

void MemoryProfilePanel::recompute()
{
    m_compute.cancel();
    m_set.reset();
    m_model->setRows({});
    m_chart->removeAllSeries();
    if (!m_cache) {
        m_status->setText(tr("No profile"));
        fillHosts();
        return;
    }
    m_status->setText(tr("Computing..."));
    m_origin = m_cache->trace().begin;
    AnalysisCachePtr cache = m_cache;
    m_compute.start([cache] { return memoryProfiles(*cache); });
}

void MemoryProfilePanel::showProfiles(std::shared_ptr<const MemoryProfileSet> set)
{
    m_set = std::move(set);
    m_status->setText(m_set->profiles.empty()
                          ? tr("No allocator events")
                          : tr("%1 allocator(s)").arg(m_set->profiles.size()));
    fillHosts();
    emit computed();
}

void MemoryProfilePanel::fillHosts()
{
    const QSignalBlocker block(m_host);
    m_host->clear();
    if (m_set) {
        for (const std::string &h : m_set->hosts())
            m_host->addItem(QString::fromStdString(h));
    }
    m_stack->setCurrentWidget(m_set && m_set->profiles.empty() ? static_cast<QWidget *>(m_empty)
                                                                : m_stack->widget(0));
    fillMemoryIds();
}

void MemoryProfilePanel::fillMemoryIds()
{
    const QSignalBlocker block(m_memoryId);
    m_memoryId->clear();
    if (m_set) {
        for (const std::string &id : m_set->memoryIds(m_host->currentText().toStdString()))
            m_memoryId->addItem(QString::fromStdString(id));
    }
    showProfile();
}

void MemoryProfilePanel::showProfile()
{
    m_chart->removeAllSeries();
    for (QAbstractAxis *axis : m_chart->axes())
        m_chart->removeAxis(axis), delete axis;
    const AllocatorProfile *p = currentProfile();
    m_model->setRows(p ? p->breakdown : std::vector<MemoryBreakdownRow>{});
    m_export->setEnabled(p && !p->breakdown.empty());
    if (!p) {
        m_cards->clear();
        return;
    }
    const MemoryProfileSummary &s = p->summary;
    const auto card = [](const QString &title, const QString &value) {
        return QStringLiteral("<td style='padding:2px 14px 2px 0'><small>%1</small><br><b>%2</b></td>")
            .arg(title.toHtmlEscaped(), value.toHtmlEscaped());
    };
    m_cards->setText(
        QStringLiteral("<table><tr>") + card(tr("Allocations"), QString::number(s.allocations))
        + card(tr("Deallocations"), QString::number(s.deallocations))
        + card(tr("Memory capacity"), gibText(s.capacity))
        + card(tr("Peak reported by allocator (lifetime)"), gibText(s.peakBytesLifetime))
        + card(tr("Peak stack + heap (this window)"), gibText(s.peakBytesInWindow))
        + card(tr("Time of peak"),
               QString::number(msFromStart(s.peakTime), 'f', 3) + QStringLiteral(" ms"))
        + QStringLiteral("</tr><tr>")
        + card(tr("Stack reservation"), gibText(s.peakStats.stackReservedBytes))
        + card(tr("Heap allocation"), gibText(s.peakStats.heapAllocatedBytes))
        + card(tr("Free memory"), gibText(s.peakStats.freeMemoryBytes))
        + card(tr("Fragmentation at peak"),
               QString::number(100 * s.peakStats.fragmentation, 'f', 1) + QStringLiteral(" %"))
        + QStringLiteral("</tr></table>"));
    // Both peaks are XProf's; they measure different things, so they may disagree either way.
    m_cards->setToolTip(
        tr("<b>Peak reported by allocator (lifetime)</b>: the allocator's own peak_bytes_in_use, "
           "over the whole life of the process, including time before this profile.<br>"
           "<b>Peak stack + heap (this window)</b>: stack reservation plus heap allocation at "
           "the snapshot with the most memory in use inside the profiled window."));
    // The chart's unit comes from its largest value: small allocations read in KiB or MiB.
    int64_t maxBytes = 0;
    for (uint32_t i : p->timeline) {
        const MemoryStats &st = p->snapshots[i].stats;
        maxBytes = std::max(maxBytes, st.stackReservedBytes + st.heapAllocatedBytes
                                          + st.freeMemoryBytes);
    }
    const ByteUnit unit = byteUnitFor(double(maxBytes));
    const auto inUnit = [&unit](int64_t bytes) { return double(bytes) / unit.divisor; };

    auto line = [](const QString &name) {
        auto *l = new QLineSeries;
        l->setName(name);
        return l;
    };
    QLineSeries *stackTop = line({}), *heapLow = line({}), *heapTop = line({}),
                *freeLow = line({}), *freeTop = line({});
    auto *frag = line(tr("Fragmentation (%)"));
    double maxGiB = 0;
    for (uint32_t i : p->timeline) {
        const MemorySnapshot &snap = p->snapshots[i];
        const double x = msFromStart(snap.time);
        const double stack = inUnit(snap.stats.stackReservedBytes);
        const double heap = stack + inUnit(snap.stats.heapAllocatedBytes);
        const double free = heap + inUnit(snap.stats.freeMemoryBytes);
        stackTop->append(x, stack);
        heapLow->append(x, stack);
        heapTop->append(x, heap);
        freeLow->append(x, heap);
        freeTop->append(x, free);
        frag->append(x, 100 * snap.stats.fragmentation);
        maxGiB = std::max(maxGiB, free);
    }
    auto area = [&](QLineSeries *upper, QLineSeries *lower, const QString &name, QColor color) {
        auto *a = new QAreaSeries(upper, lower);
        a->setName(name);
        color.setAlpha(170);
        a->setBrush(color);
        a->setPen(QPen(color.darker(130), 1));
        addAreaSeries(m_chart, a);
        connect(a, &QAreaSeries::hovered, this, [this](const QPointF &pt, bool state) {
            if (state)
                hoverAt(pt.x());
        });
        connect(a, &QAreaSeries::clicked, this, [this](const QPointF &pt) { clickAt(pt.x()); });
        return a;
    };
    QList<QAbstractSeries *> series = {area(stackTop, nullptr, tr("Stack"), QColor(0xf4, 0x8f, 0x3a)),
                                       area(heapTop, heapLow, tr("Heap"), QColor(0x42, 0x85, 0xf4)),
                                       area(freeTop, freeLow, tr("Free"), QColor(0x9e, 0xd6, 0x8c))};
    frag->setPen(QPen(QColor(0xc6, 0x28, 0x28), 1.5));
    m_chart->addSeries(frag);
    connect(frag, &QLineSeries::hovered, this, [this](const QPointF &pt, bool state) {
        if (state)
            hoverAt(pt.x());
    });
    connect(frag, &QLineSeries::clicked, this, [this](const QPointF &pt) { clickAt(pt.x()); });

    auto *x = new QValueAxis;
    x->setTitleText(tr("Time (ms)"));
    auto *y = new QValueAxis;
    y->setTitleText(tr("Memory (%1)").arg(unit.name));
    applyNiceAxis(y, 0, maxGiB > 0 ? maxGiB : 1);
    auto *y2 = new QValueAxis;
    y2->setTitleText(tr("Fragmentation (%)"));
    applyNiceAxis(y2, 0, 100);
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    m_chart->addAxis(y2, Qt::AlignRight);
    if (!p->timeline.empty())
        applyNiceAxis(x, msFromStart(p->snapshots[p->timeline.front()].time),
                      msFromStart(p->snapshots[p->timeline.back()].time), 8);
    for (QAbstractSeries *a : series) {
        a->attachAxis(x);
        a->attachAxis(y);
    }
    frag->attachAxis(x);
    frag->attachAxis(y2);
    m_chart->setTitle(tr("%1 on %2").arg(m_memoryId->currentText(), m_host->currentText()));
    applyChartPalette(m_chartView);
}

int MemoryProfilePanel::nearestTimelinePoint(double ms) const
{
    const AllocatorProfile *p = currentProfile();
    if (!p || p->timeline.empty())
        return -1;
    int best = 0;
    double bestDistance = -1;
    for (size_t k = 0; k < p->timeline.size(); ++k) {
        const double d = std::abs(msFromStart(p->snapshots[p->timeline[k]].time) - ms);
        if (bestDistance < 0 || d < bestDistance) {
            bestDistance = d;
            best = int(k);
        }
    }
    return int(p->timeline[size_t(best)]);
}

void MemoryProfilePanel::hoverAt(double ms)
{
    const int i = nearestTimelinePoint(ms);
    if (i < 0)
        return;
    const MemorySnapshot &s = currentProfile()->snapshots[size_t(i)];
    const QString text =
        tr("%1 at %2 ms, step %3: %4 | region %5 | %6 %7 | requested %8, allocated %9 | "
           "in use %10 (stack %11, heap %12), free %13, fragmentation %14 %")
            .arg(QString::fromLatin1(activityName(s.activity)))
            .arg(msFromStart(s.time), 0, 'f', 3)
            .arg(s.stepId)
            .arg(s.opName.empty() ? tr("(no op)") : QString::fromStdString(s.opName))
            .arg(QString::fromStdString(s.regionType), QString::fromStdString(s.dataType),
                 QString::fromStdString(s.shape))
            .arg(gibText(s.requestedBytes), gibText(s.allocationBytes), gibText(s.stats.inUse()),
                 gibText(s.stats.stackReservedBytes), gibText(s.stats.heapAllocatedBytes),
                 gibText(s.stats.freeMemoryBytes))
            .arg(100 * s.stats.fragmentation, 0, 'f', 1);
    m_hover->setText(text);
    if (isVisible())
        QToolTip::showText(QCursor::pos(), text.split(QStringLiteral(" | ")).join('\n'), m_chartView);
}

void MemoryProfilePanel::clickAt(double ms)
{
    const int i = nearestTimelinePoint(ms);
    if (i >= 0)
        emit timeActivated(currentProfile()->snapshots[size_t(i)].time);
}

} // namespace tracedesk::views

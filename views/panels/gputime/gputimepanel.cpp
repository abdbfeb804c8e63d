#include "views/panels/gputime/gputimepanel.h"

#include "core/analysis/framework.h"
#include "core/analysis/gputime/gputime.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "views/common/namecolumn.h"
#include "views/panels/common/rowtable.h"

#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace tracedesk::views {

namespace {

using namespace core::analysis::gputime;

constexpr int kSortRole = Qt::UserRole + 1;
constexpr int kRowRole = Qt::UserRole + 2; // a launch row's index in the report

QStandardItem *textItem(const QString &text)
{
    auto *item = new QStandardItem(text);
    item->setData(text, kSortRole);
    item->setEditable(false);
    return item;
}

QStandardItem *numberItem(double value, int decimals)
{
    auto *item = new QStandardItem(QString::number(value, 'f', decimals));
    item->setData(value, kSortRole);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setEditable(false);
    return item;
}

QTableView *addTable(QVBoxLayout *layout, QWidget *parent, const QString &title,
                     QStandardItemModel *model, const QString &note = {})
{
    auto *box = new QGroupBox(title, parent);
    auto *v = new QVBoxLayout(box);
    if (!note.isEmpty()) {
        auto *label = new QLabel(note, box);
        label->setWordWrap(true);
        v->addWidget(label);
    }
    QTableView *view = makeRowTable(makeTableProxy(model, kSortRole, -1, box), box);
    view->horizontalHeader()->setStretchLastSection(true);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    v->addWidget(view);
    layout->addWidget(box);
    return view;
}

// As tall as its rows (up to a dozen, then it scrolls): a one-row table is not a tall empty box.
void fitRows(QTableView *view)
{
    const int rows = std::clamp(view->model()->rowCount(), 1, 12);
    view->setFixedHeight(view->horizontalHeader()->height()
                         + rows * view->verticalHeader()->defaultSectionSize()
                         + 2 * view->frameWidth() + view->horizontalScrollBar()->sizeHint().height());
}

} // namespace

GpuTimePanel::GpuTimePanel(QWidget *parent) : QWidget(parent)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    outer->addWidget(scroll);
    auto *body = new QWidget(scroll);
    scroll->setWidget(body);
    auto *layout = new QVBoxLayout(body);
    m_status = new QLabel(tr("No trace loaded."), body);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    m_temporal = new QStandardItemModel(0, 8, this);
    m_temporal->setHorizontalHeaderLabels({tr("Device"), tr("Span (us)"), tr("Idle (us)"),
                                           tr("Idle %"), tr("Compute (us)"), tr("Compute %"),
                                           tr("Non-compute (us)"), tr("Non-compute %")});
    m_views << addTable(layout, body, tr("Temporal breakdown"), m_temporal,
             tr("From the first to the last GPU activity of each device: idle (no activity), "
                "compute (computation kernels) and non-compute (communication and memory "
                "kernels not overlapped by computation)."));
    m_idle = new QStandardItemModel(0, 6, this);
    m_idle->setHorizontalHeaderLabels({tr("Device"), tr("Stream"), tr("Gaps"),
                                       tr("Host wait (us)"), tr("Kernel wait (us)"),
                                       tr("Other (us)")});
    m_views << addTable(layout, body, tr("Idle time by cause"), m_idle,
             tr("Each gap between two activities of a stream: host wait when the next launch "
                "came after the stream went idle; kernel wait when shorter than %1 us; other "
                "otherwise (HolisticTraceAnalysis's rules).")
                 .arg(kKernelWaitThresholdUs));
    m_types = new QStandardItemModel(0, 3, this);
    m_types->setHorizontalHeaderLabels({tr("Kernel type"), tr("Time (us)"), tr("Kernels")});
    m_views << addTable(layout, body, tr("Kernel time by type"), m_types);
    m_views.back()->sortByColumn(1, Qt::DescendingOrder);
    m_launches = new QStandardItemModel(0, 6, this);
    m_launches->setHorizontalHeaderLabels({tr("Kernel"), tr("Launch call"), tr("CPU (us)"),
                                           tr("GPU (us)"), tr("Launch delay (us)"),
                                           tr("Correlation")});
    m_launchView = addTable(layout, body, tr("Launch outliers"), m_launches,
                            tr("Launch calls over %1 us or kernels starting over %2 us after "
                               "their launch returned (HolisticTraceAnalysis's cut-offs; a long "
                               "delay behind a deep queue is queueing, see the queue length "
                               "below); click one to show it on the timeline.")
                                .arg(kRuntimeOutlierUs)
                                .arg(kLaunchDelayOutlierUs));
    m_views << m_launchView;
    m_outline = new QPushButton(tr("Outline all on the timeline"), body);
    m_outline->setEnabled(false);
    layout->addWidget(m_outline, 0, Qt::AlignLeft);
    connect(m_outline, &QPushButton::clicked, this, [this] {
        if (!m_report || !m_cache)
            return;
        auto refs = std::make_shared<std::vector<core::SliceRef>>();
        for (const LaunchStat &l : m_report->launches) {
            if (l.runtimeOutlier() || l.delayOutlier())
                refs->push_back(l.call);
        }
        const core::Trace &trace = m_cache->trace();
        emit rangeActivated(trace.begin, trace.end, tr("launch outliers"), std::move(refs));
    });
    giveNameColumnTheRoom(m_launchView, 0);
    m_launchView->setTextElideMode(Qt::ElideMiddle);
    connect(m_launchView, &QTableView::clicked, this, [this](const QModelIndex &index) {
        const int row = index.sibling(index.row(), 0).data(kRowRole).toInt();
        if (m_report && row >= 0 && size_t(row) < m_report->launches.size())
            emit sliceActivated(m_report->launches[size_t(row)].call);
    });
    m_opKernels = new QStandardItemModel(0, 5, this);
    m_opKernels->setHorizontalHeaderLabels({tr("Operator"), tr("Kernels launched"),
                                            tr("Occurrences"), tr("Op to launch (us)"),
                                            tr("Launch to kernel (us)")});
    QTableView *ops = addTable(layout, body, tr("Operators and their kernels"), m_opKernels,
                               tr("Each aten operator with the kernels one call launched; the "
                                  "mean delay from the operator's start to each launch, and from "
                                  "each launch to its kernel's start."));
    ops->sortByColumn(2, Qt::DescendingOrder);
    ops->setTextElideMode(Qt::ElideMiddle);
    ops->setColumnWidth(0, 260);
    ops->setColumnWidth(1, 520);
    m_views << ops;
    m_queue = new QStandardItemModel(0, 9, this);
    m_queue->setHorizontalHeaderLabels({tr("Device"), tr("Stream"), tr("Points"), tr("Mean"),
                                        tr("Std"), tr("Min"), tr("Median"), tr("Max"),
                                        tr("Blocked (us)")});
    m_views << addTable(layout, body, tr("Launch queue length"), m_queue,
             tr("Launches queued on a stream and not yet started; blocked is the time at %1 "
                "queued launches, where CUDA makes the next launch wait.")
                 .arg(kMaxLaunchQueue));
    layout->addStretch(1);
}

GpuTimePanel::~GpuTimePanel() = default;

QString GpuTimePanel::notApplicableReason(const core::Trace &trace)
{
    if (!core::analysis::isPyTorchTrace(trace))
        return tr("GPU Time reads the launches and kernels of a PyTorch profiler trace; this "
                  "profile is not one.");
    return {};
}

QString GpuTimePanel::statusText() const
{
    return m_status->text();
}

void GpuTimePanel::setAnalyses(core::analysis::AnalysisCachePtr cache)
{
    m_compute.cancel();
    m_cache = std::move(cache);
    m_report.reset();
    m_outline->setEnabled(false);
    for (QStandardItemModel *m : {m_temporal, m_idle, m_types, m_launches, m_opKernels, m_queue})
        m->removeRows(0, m->rowCount());
    if (!m_cache) {
        m_status->setText(tr("No trace loaded."));
        return;
    }
    if (const QString why = notApplicableReason(m_cache->trace()); !why.isEmpty()) {
        m_status->setText(why);
        emit computed();
        return;
    }
    m_status->setText(tr("Computing..."));
    m_compute.start([cache = m_cache] {
        const auto index = core::analysis::pytorch::kinetoIndex(*cache);
        return std::make_shared<const GpuTimeReport>(gpuTimeReport(cache->trace(), *index));
    });
}

void GpuTimePanel::showReport(ReportPtr report)
{
    m_report = std::move(report);
    const GpuTimeReport &r = *m_report;
    if (r.temporal.empty()) {
        m_status->setText(tr("This PyTorch profile has no GPU activity: nothing waited."));
        emit computed();
        return;
    }
    double idle = 0, total = 0;
    for (const TemporalBreakdown &t : r.temporal) {
        m_temporal->appendRow({numberItem(double(t.device), 0), numberItem(t.totalUs, 1),
                               numberItem(t.idleUs, 1), numberItem(t.idlePct(), 2),
                               numberItem(t.computeUs, 1), numberItem(t.computePct(), 2),
                               numberItem(t.nonComputeUs, 1), numberItem(t.nonComputePct(), 2)});
        idle += t.idleUs;
        total += t.totalUs;
    }
    double host = 0, kernel = 0, other = 0;
    for (const IdleBreakdown &i : r.idle) {
        m_idle->appendRow({numberItem(double(i.device), 0), numberItem(double(i.stream), 0),
                           numberItem(double(i.gaps), 0), numberItem(i.hostWaitUs, 1),
                           numberItem(i.kernelWaitUs, 1), numberItem(i.otherUs, 1)});
        host += i.hostWaitUs;
        kernel += i.kernelWaitUs;
        other += i.otherUs;
    }
    for (const KernelTypeTime &k : r.kernelTypes)
        m_types->appendRow({textItem(QString::fromStdString(k.type)), numberItem(k.sumUs, 1),
                            numberItem(double(k.count), 0)});
    size_t outliers = 0;
    for (size_t i = 0; i < r.launches.size(); ++i) {
        const LaunchStat &l = r.launches[i];
        if (!l.runtimeOutlier() && !l.delayOutlier())
            continue;
        ++outliers;
        QStandardItem *name = textItem(QString::fromStdString(l.kernel));
        name->setData(int(i), kRowRole);
        name->setToolTip(QString::fromStdString(l.kernel));
        m_launches->appendRow({name, textItem(QString::fromStdString(l.runtime)),
                               numberItem(l.cpuDurationUs, 1), numberItem(l.gpuDurationUs, 1),
                               numberItem(l.launchDelayUs, 1),
                               numberItem(double(l.correlation), 0)});
    }
    m_outline->setEnabled(outliers > 0);
    for (const QueueLength &q : r.queueLength)
        m_queue->appendRow({numberItem(double(q.device), 0), numberItem(double(q.stream), 0),
                            numberItem(double(q.count), 0), numberItem(q.mean, 2),
                            numberItem(q.std, 2), numberItem(q.min, 0), numberItem(q.p50, 1),
                            numberItem(q.max, 0), numberItem(q.blockedUs, 1)});
    for (const OpKernelSequence &o : r.opKernels) {
        QStringList kernels;
        for (const std::string &k : o.kernels)
            kernels << QString::fromStdString(k);
        QStandardItem *sequence = textItem(kernels.join(QStringLiteral(" → ")));
        sequence->setToolTip(kernels.join('\n'));
        m_opKernels->appendRow({textItem(QString::fromStdString(o.op)), sequence,
                                numberItem(double(o.occurrences), 0), numberItem(o.opToLaunchUs, 1),
                                numberItem(o.launchToKernelUs, 1)});
    }
    for (QTableView *view : m_views)
        fitRows(view);
    // The answer first: how much the GPU idled, and mostly why.
    const double gaps = host + kernel + other;
    QString cause;
    if (gaps > 0) {
        const double top = std::max({host, kernel, other});
        cause = top == host     ? tr("mostly waiting for the host to launch (%1 % of the gaps)")
                : top == kernel ? tr("mostly short gaps between back-to-back kernels (%1 %)")
                                : tr("mostly long gaps with the launch already queued (%1 %)");
        cause = cause.arg(100.0 * top / gaps, 0, 'f', 1);
    }
    const QString scope = r.scope.empty()
                              ? QString()
                              : tr("%1 (the first; gpu-time --rank N for another): ")
                                    .arg(QString::fromStdString(r.scope));
    m_status->setText(
        scope
        + tr("The GPU was idle %1 % of its active span (%2 of %3 ms)%4. %5 launch outliers of %6 "
           "launches.")
            .arg(total > 0 ? 100.0 * idle / total : 0.0, 0, 'f', 1)
            .arg(idle / 1000.0, 0, 'f', 2)
            .arg(total / 1000.0, 0, 'f', 2)
            .arg(cause.isEmpty() ? QString() : QStringLiteral(", ") + cause)
            .arg(outliers)
            .arg(r.launches.size()));
    emit computed();
}

} // namespace tracedesk::views

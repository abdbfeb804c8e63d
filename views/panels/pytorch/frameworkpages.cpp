#include "views/panels/pytorch/frameworkpages.h"

#include "core/analysis/pytorch/kinetoindex.h"
#include "core/analysis/pytorch/rankanalyses.h"
#include "views/panels/pytorch/rankchoice.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace tracedesk::views {

bool isPyTorchTrace(const core::Trace &trace)
{
    return trace.info.run.framework == "pytorch";
}

bool isPyTorchTrace(const core::analysis::AnalysisCachePtr &cache)
{
    return cache && isPyTorchTrace(cache->trace());
}

FrameworkPages::FrameworkPages(QWidget *panel, QWidget *classic, QWidget *pytorch, Feed feedPyTorch)
    : QStackedWidget(panel)
    , m_classic(classic)
    , m_pytorch(pytorch)
    , m_pytorchPage(pytorch)
    , m_feed(std::move(feedPyTorch))
    , m_takes([](const core::Trace &trace) { return isPyTorchTrace(trace); })
{
    m_choice = new PyTorchRankChoice(this);
    connect(m_choice, &PyTorchRankChoice::chosen, this, &FrameworkPages::onChosen);
    if (!qobject_cast<NotApplicableView *>(pytorch)) {
        m_pytorchPage = new QWidget(this);
        m_rankBar = new QWidget(m_pytorchPage);
        m_rankBar->setObjectName(QStringLiteral("pytorchRankBar"));
        m_chooser = new QComboBox(m_rankBar);
        m_chooser->setObjectName(QStringLiteral("pytorchRankChooser"));
        m_chooser->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        m_chooser->setToolTip(tr("The rank whose PyTorch views are shown"));
        auto *hint = new QLabel(tr("This run merges several ranks; the PyTorch views show one "
                                   "rank at a time."),
                                m_rankBar);
        auto *bar = new QHBoxLayout(m_rankBar);
        bar->setContentsMargins(9, 6, 9, 0);
        bar->addWidget(new QLabel(tr("Rank:"), m_rankBar));
        bar->addWidget(m_chooser);
        bar->addWidget(hint, 1);
        auto *box = new QVBoxLayout(m_pytorchPage);
        box->setContentsMargins(0, 0, 0, 0);
        box->setSpacing(0);
        box->addWidget(m_rankBar);
        box->addWidget(pytorch, 1);
        m_rankBar->hide();
        connect(m_chooser, &QComboBox::activated, this, [this](int index) {
            if (m_cache && index >= 0)
                m_choice->choose(m_cache, uint32_t(index));
        });
    }
    addWidget(classic);
    addWidget(m_pytorchPage);
    setCurrentWidget(classic);
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(this);
}

core::analysis::AnalysisCachePtr FrameworkPages::route(core::analysis::AnalysisCachePtr cache)
{
    const bool pytorch = cache && m_takes(cache->trace());
    setCurrentWidget(pytorch ? m_pytorchPage : m_classic);
    m_cache = pytorch ? cache : nullptr;
    showRanks();
    m_feed(m_cache ? m_choice->analyses(m_cache) : nullptr);
    return pytorch ? nullptr : cache;
}

void FrameworkPages::setRankChoice(PyTorchRankChoice *choice)
{
    if (!choice || choice == m_choice)
        return;
    disconnect(m_choice, nullptr, this, nullptr);
    if (m_choice->parent() == this)
        m_choice->deleteLater();
    m_choice = choice;
    connect(m_choice, &PyTorchRankChoice::chosen, this, &FrameworkPages::onChosen);
}

// The chooser lists the run's ranks; hidden unless the trace is a merged run of several.
void FrameworkPages::showRanks()
{
    if (!m_chooser)
        return;
    const std::vector<std::string> labels =
        m_cache ? core::analysis::pytorch::rankSectionLabels(m_cache->trace())
                : std::vector<std::string>();
    const QSignalBlocker blocker(m_chooser);
    m_chooser->clear();
    const uint32_t ranks =
        m_cache ? core::analysis::pytorch::kinetoRankCount(m_cache->trace()) : 0;
    for (const std::string &label : labels)
        m_chooser->addItem(tr("%1 of %2").arg(QString::fromStdString(label)).arg(ranks));
    if (!labels.empty())
        m_chooser->setCurrentIndex(int(m_choice->section(m_cache)));
    m_rankBar->setVisible(labels.size() >= 2);
}

void FrameworkPages::onChosen(const core::analysis::AnalysisCache *cache, uint32_t section)
{
    if (!m_cache || m_cache.get() != cache)
        return;
    if (m_chooser) {
        const QSignalBlocker blocker(m_chooser);
        m_chooser->setCurrentIndex(int(section));
    }
    m_feed(m_choice->analyses(m_cache));
}

NotApplicableView::NotApplicableView(const QString &reason, QWidget *parent) : QWidget(parent)
{
    m_reason = new QLabel(reason, this);
    m_reason->setObjectName(QStringLiteral("notApplicableReason"));
    m_reason->setWordWrap(true);
    m_reason->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reason->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_reason);
    layout->addStretch(1);
}

QString FrameworkPages::pytorchReason() const
{
    const auto *view = qobject_cast<const NotApplicableView *>(m_pytorch);
    return view ? view->reasonText() : QString();
}

QString NotApplicableView::reasonText() const
{
    return m_reason->text();
}

} // namespace tracedesk::views
